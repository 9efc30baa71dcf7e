//go:build race

package session_test

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = true
