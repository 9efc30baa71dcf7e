package arena

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
