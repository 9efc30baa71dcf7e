package budget

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// readableError fails when a message shows what a person should not
// read: raw input bytes or Go's type names.
func readableError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if why := strictjson.Unreadable(err.Error()); why != "" {
		t.Fatalf("the message shows %s: %q", why, err.Error())
	}
}

func seeds(f *testing.F, pattern string, extra ...string) {
	paths, _ := filepath.Glob(pattern)
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzParsePolicy: a policy file never panics the reader, and a refusal
// reads as a sentence about the file.
func FuzzParsePolicy(f *testing.F) {
	seeds(f, filepath.Join("..", "examples", "budget", "*.json"),
		`{"mode":"normal","maxRetries":2}`, `{"retryPolicy":{"mode":"always"},"compaction":{"maxOverflowRetries":1}}`, `{"mode":"normal","mode":"always"}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParsePolicy(data)
		readableError(t, err)
	})
}

// FuzzParseEnvironment: the same for an environment file.
func FuzzParseEnvironment(f *testing.F) {
	seeds(f, filepath.Join("..", "examples", "budget", "*.json"),
		`{"latencyMs":{"uniform":[1,5]},"failures":[{"code":"SERVER","status":503,"p":0.1}]}`,
		`{"bursts":{"pGoodToBad":0.1,"pBadToGood":0.5,"failures":[{"code":"SERVER","p":1}]}}`,
		`{"workload":{"toolSteps":3,"resultChars":4000,"contextWindow":2500}}`,
		`{"horizonMs":3600000,"arrivals":{"schedule":[{"fromMs":0,"perMinute":2},{"fromMs":600000,"perMinute":0}]},"outages":[{"fromMs":60000,"forMs":1000,"code":"SERVER"}],
		  "incidents":[{"perHour":4,"forMs":{"exponentialMean":30000},"code":"RATE_LIMIT","status":429,"retryAfterMs":{"uniform":[100,900]}}]}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := ParseEnvironment(data)
		readableError(t, err)
		if err != nil || !env.Timed() || env.expectedTurns() > 1e4 || env.rateCount() > 1e5 {
			return // drawing it is a long run, not a fuzz step
		}
		// A horizon the reader accepts draws without a panic, in order.
		tl := newTimeline(env, 1)
		if len(env.Incidents) > 0 && env.Incidents[0].PerHour/3600e3*env.HorizonMs > 1e4 {
			return // drawing its incidents is a long run, not a fuzz step
		}
		tl.until(env.HorizonMs)
		if !slices.IsSorted(tl.arrivals) || len(tl.arrivals) > 0 && (tl.arrivals[0] < 0 || tl.arrivals[len(tl.arrivals)-1] >= env.HorizonMs) {
			t.Fatalf("arrivals out of order or off the horizon: %v", tl.arrivals)
		}
		drawn := tl.sorted()
		for i, in := range drawn {
			if !(in.ToMs >= in.FromMs) || i > 0 && drawn[i-1].FromMs > in.FromMs {
				t.Fatalf("incident %d of %d: %+v", i, len(drawn), in)
			}
		}
	})
}
