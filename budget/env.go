package budget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// Environment is the provider a policy faces.
type Environment struct {
	// Failures fail each request independently: entry i with probability
	// P, checked in order (the first that fires is the failure).
	Failures []Failure `json:"failures"`
	// Outages fail every request from FromMs for ForMs of virtual time:
	// of each turn's, or, with a horizon, of the horizon's (a scheduled
	// outage that hits the turns running then).
	Outages []Outage `json:"outages"`
	// Bursts, when set, make failures come in bursts: a two-state
	// (good/bad) Markov chain stepped before every request, starting good;
	// in the bad state Bursts.Failures apply instead of Failures.
	Bursts *Bursts `json:"bursts"`
	// LatencyMs, when set, is every request's latency.
	LatencyMs *Distribution `json:"latencyMs"`
	// Workload, when set, makes each turn several steps: ToolSteps tool
	// calls whose results of ResultChars characters grow the history, then
	// the answer; with ContextWindow (tokens) the model rejects a request
	// whose history is larger (natural overflow), which compaction can
	// recover from.
	Workload *Workload `json:"workload"`
	// HorizonMs, when set, makes the environment one stretch of virtual
	// time (horizon.go): turns arrive over it as Arrivals says, and
	// Incidents arrive and last as a process over it.
	HorizonMs float64        `json:"horizonMs"`
	Arrivals  *Arrivals      `json:"arrivals"`
	Incidents []IncidentKind `json:"incidents"`
}

// Workload is the shape of a turn.
type Workload struct {
	ToolSteps     int `json:"toolSteps"`
	ResultChars   int `json:"resultChars"`
	ContextWindow int `json:"contextWindow"`
}

// Bursts is the bad state of a Gilbert–Elliott provider.
type Bursts struct {
	// PGoodToBad and PBadToGood are the per-request transition
	// probabilities.
	PGoodToBad float64   `json:"pGoodToBad"`
	PBadToGood float64   `json:"pBadToGood"`
	Failures   []Failure `json:"failures"`
}

// Distribution is a non-negative random quantity: exactly one of a fixed
// value, a uniform range, or an exponential with a mean.
type Distribution struct {
	Fixed       *float64    `json:"fixed"`
	Uniform     *[2]float64 `json:"uniform"`
	Exponential *float64    `json:"exponentialMean"`
}

// draw samples the distribution with u uniform in [0,1).
func (d *Distribution) draw(u float64) float64 {
	switch {
	case d.Fixed != nil:
		return *d.Fixed
	case d.Uniform != nil:
		return d.Uniform[0] + u*(d.Uniform[1]-d.Uniform[0])
	}
	return -*d.Exponential * math.Log1p(-u)
}

// longestExponential is the most an exponential's draw can be, in means:
// draw takes −ln(1 − u) with u a 53-bit uniform below 1 (math/rand/v2's
// Float64), which is at most 53·ln 2 ≈ 36.7. An exponential is
// unbounded; what is drawn of one is not, and that is what the duration
// limit bounds: every value drawn stays within it, with the distribution
// exactly as asked (a draw clamped at the limit would not be; a bound on
// the mean alone would let a third of a mean-at-the-limit's draws past).
const longestExponential = 53 * math.Ln2

// validate checks a distribution of durations at path: its shape, and
// that no draw can exceed limits.Current.DurationMs (an unbounded one
// overflows virtual time). draws is how many exponential draws one value
// may sum: 2 for an incident's length, which a length-biased draw makes
// (drawLengthBiased), else 1.
func (d *Distribution) validate(path string, draws int) error {
	set := 0
	for _, ok := range []bool{d.Fixed != nil, d.Uniform != nil, d.Exponential != nil} {
		if ok {
			set++
		}
	}
	switch {
	case set != 1:
		return fmt.Errorf("%s: needs exactly one of fixed, uniform, exponentialMean", path)
	case d.Fixed != nil && !(*d.Fixed >= 0):
		return fmt.Errorf("%s.fixed: must be ≥ 0, got %v", path, *d.Fixed)
	case d.Uniform != nil && !(d.Uniform[0] >= 0 && d.Uniform[1] >= d.Uniform[0]):
		return fmt.Errorf("%s.uniform: want [low, high] with 0 ≤ low ≤ high, got %v", path, *d.Uniform)
	case d.Exponential != nil && !(*d.Exponential > 0):
		return fmt.Errorf("%s.exponentialMean: must be > 0, got %v", path, *d.Exponential)
	case d.Fixed != nil:
		return durationLimit(path+".fixed", *d.Fixed)
	case d.Uniform != nil:
		return durationLimit(path+".uniform[1]", d.Uniform[1]) // its high end
	}
	factor := longestExponential * float64(draws)
	if longest := *d.Exponential * factor; !(longest <= limits.Current.DurationMs) {
		return fmt.Errorf("%s.exponentialMean: %w", path, &limits.Exceeded{
			What:  fmt.Sprintf("%s ms, the longest draw of a mean of %s ms (%.3g × the mean),", number(math.Round(longest)), number(*d.Exponential), factor),
			Limit: number(limits.Current.DurationMs) + " ms", Flag: limits.FlagDurationMs})
	}
	return nil
}

// durationLimit refuses a duration or a time past limits.Current.DurationMs,
// as a scenario's reader does: DSH's bound on a timer, and what keeps a
// turn's virtual time from overflowing (1e300 ms once gave violations
// blamed on the loop).
func durationLimit(path string, ms float64) error {
	if max := limits.Current.DurationMs; !(ms <= max) {
		return fmt.Errorf("%s: %w", path, &limits.Exceeded{What: number(ms) + " ms", Limit: number(max) + " ms", Flag: limits.FlagDurationMs})
	}
	return nil
}

// Failure is one code's independent failure probability, with the
// provider's Retry-After when it sends one (RATE_LIMIT, typically).
type Failure struct {
	Code         string        `json:"code"`
	Status       int           `json:"status"`
	P            float64       `json:"p"`
	RetryAfterMs *Distribution `json:"retryAfterMs"`
}

// Outage is a window in which every request fails with Code, carrying a
// Retry-After drawn once for the outage (per turn without a horizon) when
// RetryAfterMs is set: a scheduled 429 storm.
type Outage struct {
	FromMs       float64       `json:"fromMs"`
	ForMs        float64       `json:"forMs"`
	Code         string        `json:"code"`
	Status       int           `json:"status"`
	RetryAfterMs *Distribution `json:"retryAfterMs"`
}

// LoadEnvironment reads and validates an environment file.
func LoadEnvironment(path string) (*Environment, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	env, err := ParseEnvironment(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return env, nil
}

// ParseEnvironment decodes an environment; errors name the line of a JSON
// error and the field of an invalid value.
func ParseEnvironment(raw []byte) (*Environment, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, err
	}
	// encoding/json names no path for an unknown field and no index for a
	// value of the wrong kind, and takes keys that match a field but for
	// case: the input is held to the type's exact keys first.
	if located := strictjson.Locate(raw, &Environment{}); located != nil {
		return nil, fmt.Errorf("invalid environment: %v", located)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var env Environment
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("invalid environment: %v", strictjson.Describe(err))
	}
	if err := env.Validate(); err != nil {
		return nil, err
	}
	return &env, nil
}

// Validate checks an environment's values as ParseEnvironment does once
// it has decoded them, errors naming the field's path; every run method
// of Config calls it, so that a value built in Go is held to what a file
// is (a probability of 7, a NaN latency, a horizon of +Inf or a rate of a
// billion a minute once ran, panicked or ran out of memory). A nil
// environment is one where no request fails.
func (e *Environment) Validate() error {
	if e == nil {
		return nil
	}
	if err := validateFailures("failures", e.Failures); err != nil {
		return err
	}
	if b := e.Bursts; b != nil {
		switch {
		case !(b.PGoodToBad >= 0 && b.PGoodToBad <= 1):
			return fmt.Errorf("bursts.pGoodToBad: must be in [0,1], got %v", b.PGoodToBad)
		case !(b.PBadToGood >= 0 && b.PBadToGood <= 1):
			return fmt.Errorf("bursts.pBadToGood: must be in [0,1], got %v", b.PBadToGood)
		}
		if err := validateFailures("bursts.failures", b.Failures); err != nil {
			return err
		}
	}
	if e.LatencyMs != nil {
		if err := e.LatencyMs.validate("latencyMs", 1); err != nil {
			return err
		}
	}
	if err := e.Workload.validate(); err != nil {
		return err
	}
	if err := e.validateHorizon(); err != nil {
		return err
	}
	for i, o := range e.Outages {
		at := fmt.Sprintf("outages[%d]", i)
		switch {
		case o.Code == "":
			return fmt.Errorf("%s.code: missing", at)
		case !(o.FromMs >= 0):
			return fmt.Errorf("%s.fromMs: must be ≥ 0, got %v", at, o.FromMs)
		case !(o.ForMs > 0):
			return fmt.Errorf("%s.forMs: must be > 0, got %v", at, o.ForMs)
		case o.Status != 0 && !session.ValidStatus(o.Status):
			return fmt.Errorf("%s.status: must be an HTTP status in 100..599, got %d", at, o.Status)
		}
		// With a horizon, fromMs is a time on it, which validateHorizon
		// bounds by horizonMs; without one, a time in each turn's world.
		if !e.Timed() {
			if err := durationLimit(at+".fromMs", o.FromMs); err != nil {
				return err
			}
		}
		if err := durationLimit(at+".forMs", o.ForMs); err != nil {
			return err
		}
		if o.RetryAfterMs != nil {
			if err := o.RetryAfterMs.validate(at+".retryAfterMs", 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks a workload: each tool result within
// limits.Current.ResultChars, and their sum over a turn's steps, which
// the turn's history and log hold at once, within
// limits.Current.TotalResultChars, as a scenario's are (100 steps of 16 M
// characters, each under the first, once took 2.5 GB in 4 s).
func (w *Workload) validate() error {
	if w == nil {
		return nil
	}
	max, total := limits.Current.ResultChars, limits.Current.TotalResultChars
	switch {
	case w.ToolSteps < 0 || w.ToolSteps > 100:
		return fmt.Errorf("workload.toolSteps: must be in [0,100], got %d", w.ToolSteps)
	case w.ResultChars < 0:
		return fmt.Errorf("workload.resultChars: must not be negative, got %d", w.ResultChars)
	case w.ResultChars > max:
		return fmt.Errorf("workload.resultChars: %w", &limits.Exceeded{What: fmt.Sprint(w.ResultChars), Limit: fmt.Sprint(max), Flag: limits.FlagResultChars})
	case w.ToolSteps > 0 && w.ResultChars > total/w.ToolSteps:
		return fmt.Errorf("workload: %w", &limits.Exceeded{
			What:  fmt.Sprintf("a turn's tool results, toolSteps × resultChars = %d × %d = %s characters,", w.ToolSteps, w.ResultChars, number(float64(w.ToolSteps)*float64(w.ResultChars))),
			Limit: fmt.Sprint(total), Flag: limits.FlagTotalResultChars})
	case w.ContextWindow < 0:
		return fmt.Errorf("workload.contextWindow: must not be negative, got %d", w.ContextWindow)
	}
	return nil
}

func validateFailures(path string, failures []Failure) error {
	for i, f := range failures {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case f.Code == "":
			return fmt.Errorf("%s.code: missing", at)
		case !(f.P >= 0 && f.P <= 1):
			return fmt.Errorf("%s.p: must be in [0,1], got %v", at, f.P)
		case f.Status != 0 && !session.ValidStatus(f.Status):
			return fmt.Errorf("%s.status: must be an HTTP status in 100..599, got %d", at, f.Status)
		}
		if f.RetryAfterMs != nil {
			if err := f.RetryAfterMs.validate(at+".retryAfterMs", 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseFailFlag reads the command line's short form of a failure,
// CODE[/STATUS]=P: "SERVER/503=0.2".
func ParseFailFlag(s string) (Failure, error) {
	spec, p, ok := strings.Cut(s, "=")
	if !ok {
		return Failure{}, fmt.Errorf("%q: want CODE[/STATUS]=P, e.g. SERVER/503=0.2", s)
	}
	var f Failure
	f.Code = spec
	if code, status, ok := strings.Cut(spec, "/"); ok {
		n, err := strconv.Atoi(status)
		if err != nil || !session.ValidStatus(n) {
			return Failure{}, fmt.Errorf("%q: status %q is not an HTTP status in 100..599", s, status)
		}
		f.Code, f.Status = code, n
	}
	v, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return Failure{}, fmt.Errorf("%q: probability %q is not a number (a share in [0,1]: 8%% is 0.08)", s, p)
	}
	f.P = v
	switch {
	case f.Code == "":
		return Failure{}, fmt.Errorf("%q: the code is missing", s)
	case !(v >= 0 && v <= 1):
		return Failure{}, fmt.Errorf("%q: the probability must be in [0,1], got %v", s, v)
	}
	return f, nil
}

// ParseOutageFlag reads the short form of an outage, FROM+FOR in
// milliseconds with an optional CODE[/STATUS]@ prefix (default SERVER/503):
// "0+20000", "RATE_LIMIT/429@5000+3000".
func ParseOutageFlag(s string) (Outage, error) {
	o := Outage{Code: "SERVER", Status: 503}
	window := s
	if spec, rest, ok := strings.Cut(s, "@"); ok {
		window = rest
		o.Code, o.Status = spec, 0
		if code, status, ok := strings.Cut(spec, "/"); ok {
			n, err := strconv.Atoi(status)
			if err != nil || !session.ValidStatus(n) {
				return Outage{}, fmt.Errorf("%q: status %q is not an HTTP status in 100..599", s, status)
			}
			o.Code, o.Status = code, n
		}
	}
	from, length, ok := strings.Cut(window, "+")
	var err1, err2 error
	o.FromMs, err1 = strconv.ParseFloat(from, 64)
	o.ForMs, err2 = strconv.ParseFloat(length, 64)
	if !ok || err1 != nil || err2 != nil || o.Code == "" || !(o.FromMs >= 0) || !(o.ForMs > 0) {
		return Outage{}, fmt.Errorf("%q: want [CODE[/STATUS]@]FROM+FOR in ms with FOR > 0, e.g. 0+20000", s)
	}
	// FOR is a duration, bounded here; FROM is a time, which the
	// environment it joins bounds (Validate: by the limit, or with a
	// horizon by horizonMs).
	if err := durationLimit("FOR", o.ForMs); err != nil {
		return Outage{}, fmt.Errorf("%q: %w", s, err)
	}
	return o, nil
}

// Codes are the failure codes the environment can produce: its failures',
// its bursts', its outages', its incidents', and CONTEXT_WINDOW_EXCEEDED when its workload
// has a context window, each once, in that order.
func (e *Environment) Codes() []string {
	var codes []string
	add := func(code string) {
		if !slices.Contains(codes, code) {
			codes = append(codes, code)
		}
	}
	for _, f := range e.Failures {
		add(f.Code)
	}
	if b := e.Bursts; b != nil {
		for _, f := range b.Failures {
			add(f.Code)
		}
	}
	for _, o := range e.Outages {
		add(o.Code)
	}
	for _, k := range e.Incidents {
		add(k.Code)
	}
	if w := e.Workload; w != nil && w.ContextWindow > 0 {
		add("CONTEXT_WINDOW_EXCEEDED")
	}
	return codes
}

// providerCodes are the codes DSH's adapter derives from a provider's
// answers (docs/dsh.md#deepseek-adapter): a policy may list any of them
// whether or not an environment produces it.
var providerCodes = []string{"AUTH", "RATE_LIMIT", "QUOTA", "CONTEXT_WINDOW_EXCEEDED", "INVALID_REQUEST", "SERVER",
	"STREAM_CLOSED", "TRANSPORT", "TIMEOUT", "EMPTY_RESPONSE", "ABORTED", "UNKNOWN"}

// ProviderCodes are the codes DSH's adapter derives from a provider's
// answers.
func ProviderCodes() []string { return slices.Clone(providerCodes) }

// derived says DSH's adapter can derive code: one of providerCodes, or
// HTTP_ and a status.
func derived(code string) bool {
	return slices.Contains(providerCodes, code) || strings.HasPrefix(code, "HTTP_")
}

// UnheardCodes are the retryable codes of a normal-mode policy that no
// provider sends and the environment never produces: a custom code is
// allowed (DSH matches codes as written), but one nothing can produce is
// most likely a typo (SERVR), and its retries are never measured.
func UnheardCodes(p *loop.RetryPolicy, env *Environment) []string {
	if p == nil || p.Mode != loop.ModeNormal || env == nil {
		return nil
	}
	produced := env.Codes()
	var out []string
	for _, code := range p.RetryableCodes {
		if !derived(code) && !slices.Contains(produced, code) {
			out = append(out, code)
		}
	}
	return out
}

// UnusualCodes are the environment's failure codes that DSH's adapter never
// derives (docs/dsh.md#deepseek-adapter), each with its field: allowed (a
// provider of one's own may send anything), but "server" for SERVER is a
// typo that makes every such failure one no policy retries.
func (e *Environment) UnusualCodes() []string {
	var out []string
	check := func(path, code string) {
		if !derived(code) {
			out = append(out, fmt.Sprintf("%s.code %s", path, strictjson.Printable(strconv.Quote(code))))
		}
	}
	for i, f := range e.Failures {
		check(fmt.Sprintf("failures[%d]", i), f.Code)
	}
	if b := e.Bursts; b != nil {
		for i, f := range b.Failures {
			check(fmt.Sprintf("bursts.failures[%d]", i), f.Code)
		}
	}
	for i, o := range e.Outages {
		check(fmt.Sprintf("outages[%d]", i), o.Code)
	}
	for i, k := range e.Incidents {
		check(fmt.Sprintf("incidents[%d]", i), k.Code)
	}
	return out
}
