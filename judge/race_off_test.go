//go:build !race

package judge

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
