package faults

import "testing"

// TestDrawIsDeterministic: a seed draws the same configuration and plan
// every time, and different seeds draw different plans.
func TestDrawIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		c1, s1 := Draw(seed, Overrides{})
		c2, s2 := Draw(seed, Overrides{})
		a, _ := s1.MarshalJSON()
		b, _ := s2.MarshalJSON()
		if c1.String() != c2.String() || string(a) != string(b) {
			t.Fatalf("seed %d drew differently twice", seed)
		}
	}
	_, s1 := Draw(1, Overrides{})
	_, s2 := Draw(2, Overrides{})
	a, _ := s1.MarshalJSON()
	b, _ := s2.MarshalJSON()
	if string(a) == string(b) {
		t.Errorf("seeds 1 and 2 drew the same plan")
	}
}

// TestSwarm: over many seeds every fault kind is enabled somewhere, and
// some seeds enable none; restricting the kinds is honoured.
func TestSwarm(t *testing.T) {
	seen := map[string]int{}
	none := 0
	for seed := uint64(1); seed <= 500; seed++ {
		c, _ := Draw(seed, Overrides{})
		if len(c.Kinds) == 0 {
			none++
		}
		for _, k := range c.Kinds {
			seen[k]++
		}
	}
	for _, k := range Kinds {
		if seen[k] == 0 {
			t.Errorf("fault kind %s was never enabled in 500 seeds", k)
		}
	}
	if none == 0 {
		t.Errorf("no seed enabled no fault kind")
	}
	for seed := uint64(1); seed <= 100; seed++ {
		c, _ := Draw(seed, Overrides{Kinds: []string{Server, Cancel}})
		for _, k := range c.Kinds {
			if k != Server && k != Cancel {
				t.Fatalf("seed %d enabled %s outside --faults server,cancel", seed, k)
			}
		}
	}
}
