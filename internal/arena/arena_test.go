package arena

import "testing"

type record struct {
	n    int
	name string
}

// TestArena: elements are distinct until Reset, zeroed when handed out
// again, and a grown arena allocates nothing.
func TestArena(t *testing.T) {
	var a Arena[record]
	seen := map[*record]bool{}
	for i := range 100 {
		p := a.Put(&record{n: i, name: "x"})
		if seen[p] {
			t.Fatalf("element %d handed out twice before Reset", i)
		}
		seen[p] = true
	}
	a.Reset()
	for i := range 100 {
		if p := a.New(); *p != (record{}) {
			t.Fatalf("element %d after Reset is %+v, want zero", i, *p)
		}
	}
	// Past the size where the runs' growth once overflowed (28,152
	// elements): a long run's records.
	a.Reset()
	for i := range 100_000 {
		a.Put(&record{n: i})
	}
	a.Reset()
	allocs := testing.AllocsPerRun(20, func() {
		a.Reset()
		for range 100 {
			a.New()
		}
	})
	if allocs != 0 {
		t.Errorf("a grown arena allocates %v times for 100 elements, want 0", allocs)
	}
}

// TestSlices: each room is capped at its size, so that an append past it
// copies rather than writes over the next room, and Reset hands the run
// out again.
func TestSlices(t *testing.T) {
	var s Slices[byte]
	first := s.Room(3, 8)
	a := append(first, "abc"...)
	b := append(s.Room(3, 8), "def"...)
	a = append(a, 'X') // past its room: a copy
	if string(b) != "def" || string(a) != "abcX" {
		t.Fatalf("rooms %q and %q, want \"abcX\" and \"def\": an append wrote over the next room", a, b)
	}
	s.Reset()
	if again := append(s.Room(3, 8), "ghi"...); &again[0] != &first[:1][0] {
		t.Fatal("after Reset the first room is not the run's first bytes again")
	}
}
