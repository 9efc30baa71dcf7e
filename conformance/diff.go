package conformance

import (
	"fmt"
	"strings"
)

// LineDiff is a (-dsh +turnsim) diff of two skeletons, whole lines only:
// a skeleton line is the evidence, and a diff that elides the middle of a
// long line can hide the field that differs. Unchanged runs are kept to
// context lines around each change. Empty when the skeletons are equal.
func LineDiff(dsh, model []string, context int) string {
	// Longest common subsequence, by dynamic programming: skeletons are a
	// few hundred lines.
	n, m := len(dsh), len(model)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if dsh[i] == model[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		mark byte
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && dsh[i] == model[j]:
			ops = append(ops, op{' ', dsh[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', dsh[i]}) // DSH's line first
			i++
		default:
			ops = append(ops, op{'+', model[j]})
			j++
		}
	}
	changed := false
	near := make([]bool, len(ops))
	for k, o := range ops {
		if o.mark != ' ' {
			changed = true
			for c := max(k-context, 0); c <= min(k+context, len(ops)-1); c++ {
				near[c] = true
			}
		}
	}
	if !changed {
		return ""
	}
	var b strings.Builder
	skipped := 0
	for k, o := range ops {
		if !near[k] {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(&b, "  … %d identical lines\n", skipped)
			skipped = 0
		}
		fmt.Fprintf(&b, "%c %s\n", o.mark, o.line)
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "  … %d identical lines\n", skipped)
	}
	return b.String()
}
