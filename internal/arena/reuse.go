package arena

import "unsafe"

// Slices hands out empty slices with room from one run of T it keeps, the
// bytes or chunks of a run's events: each slice is capped at its room, so
// that an append past it copies rather than writes over the next one.
// Reset hands the last run out again (the storage keeps one run of the
// size a run needs). The zero value is ready to use.
type Slices[T any] struct {
	run []T
}

// Room is an empty slice with room for n elements, good until Reset; a
// run made anew has room for at least least elements.
func (s *Slices[T]) Room(n, least int) []T {
	if cap(s.run)-len(s.run) < n {
		s.run = make([]T, 0, max(2*cap(s.run), n, least))
	}
	start := len(s.run)
	s.run = s.run[:start+n]
	return s.run[start : start : start+n]
}

// Holds reports whether p lies in what Room has handed out of the run it
// hands out now: memory whose contents stay until Reset.
func (s *Slices[T]) Holds(p []T) bool {
	if len(p) == 0 || len(s.run) == 0 {
		return false
	}
	size := unsafe.Sizeof(p[0])
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.run)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	return start >= base && start+uintptr(len(p))*size <= base+uintptr(len(s.run))*size
}

// Reset hands the run out again.
func (s *Slices[T]) Reset() { s.run = s.run[:0] }

// Emptied is m emptied, or a new map for none: a map kept from run to
// run.
func Emptied[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return make(M)
	}
	clear(m)
	return m
}

// Fresh is the map made where a new one was made: *spare emptied, or
// made the first time and kept in *spare.
func Fresh[M ~map[K]V, K comparable, V any](spare *M) M {
	*spare = Emptied(*spare)
	return *spare
}
