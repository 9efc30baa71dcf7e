package simrun

import "strings"

// safeName is a scenario's name as one path element: a name comes from a
// file, and a file may come from anywhere.
func safeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	// Not hidden, and not read as a flag by the next command.
	s := strings.TrimLeft(string(b), ".-")
	if s == "" {
		return "scenario"
	}
	return s
}
