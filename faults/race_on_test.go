//go:build race

package faults

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = true
