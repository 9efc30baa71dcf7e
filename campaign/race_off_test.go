//go:build !race

package campaign_test

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
