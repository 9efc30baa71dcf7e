// Package arena hands out values from memory that is kept and handed out
// again: the payloads of a worker's logs, the oracle's records of a run.
// What a run makes in an arena is made once per worker, not once per run,
// and the garbage collector has none of it to free.
package arena

// Arena hands out zeroed elements of T from runs it keeps, each twice the
// last from 8 to 512 elements; Reset hands the same elements out again.
// The zero value is ready to use. It is not safe for concurrent use.
type Arena[T any] struct {
	runs [][]T
	run  int // the run elements are handed out from
	used int // elements of runs[run] handed out
}

// New is a zeroed element, good until Reset. A nil arena makes each in
// memory of its own.
func (a *Arena[T]) New() *T {
	if a == nil {
		return new(T)
	}
	if a.run == len(a.runs) {
		// 8<<n stops at 512 (n = 6): an unbounded shift overflows int
		// after 60 runs, and a long run (28,152 elements) would panic.
		a.runs = append(a.runs, make([]T, 8<<min(len(a.runs), 6)))
	}
	r := a.runs[a.run]
	p := &r[a.used]
	if a.used++; a.used == len(r) {
		a.run, a.used = a.run+1, 0
	}
	return p
}

// Put is a copy of *v, good until Reset.
func (a *Arena[T]) Put(v *T) *T {
	p := a.New()
	*p = *v
	return p
}

// Reset zeroes every element handed out and hands them out again: a
// reused element starts as a new one would, and memory the last ones
// referred to is not kept alive by them.
func (a *Arena[T]) Reset() {
	for i := 0; i < a.run && i < len(a.runs); i++ {
		clear(a.runs[i])
	}
	if a.run < len(a.runs) {
		clear(a.runs[a.run][:a.used])
	}
	a.run, a.used = 0, 0
}
