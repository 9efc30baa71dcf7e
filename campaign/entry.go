package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// corpusFormat is the version of corpus entries this build reads and
// writes.
const corpusFormat = 1

// Entry is a corpus entry: a failure kept as its shrunk plan (a bare seed
// drifts when the generators change), with where it came from.
type Entry struct {
	Format    int            `json:"format"`
	Turnsim   string         `json:"turnsim"`
	Seed      string         `json:"seed"`
	Overrides EntryOverrides `json:"overrides"`
	Mutant    string         `json:"mutant,omitempty"`
	// System is the system under test that failed, when not the model:
	// "dsh" (DSH's own loop) or "both" (it and the model differed).
	System string `json:"system,omitempty"`
	// View names the Web view code other than turnsim's that every log
	// of the run was derived with ("dsh": --dsh-view): the entry replays
	// with it, and a run without it skips the entry.
	View string `json:"view,omitempty"`
	// Listeners are the plug-ins of one's own the run had (added or in a
	// built-in's place): a replay without them would run other code.
	Listeners []string        `json:"listeners,omitempty"`
	Invariant oracle.ID       `json:"invariant"`
	Message   string          `json:"message"`
	Plan      []string        `json:"plan"`
	Scenario  json.RawMessage `json:"scenario"`
}

// EntryOverrides are the run's config overrides, as flags spell them.
type EntryOverrides struct {
	Policy json.RawMessage `json:"policy,omitempty"`
	Faults []string        `json:"faults,omitempty"`
}

// NewEntry makes the entry of a shrunk failure.
func NewEntry(version string, seed uint64, o faults.Overrides, mutant string, invariant oracle.ID, message string, shrunk *sim.Scenario) (*Entry, error) {
	scenario, err := shrunk.MarshalJSON()
	if err != nil {
		return nil, err
	}
	e := &Entry{Format: corpusFormat, Turnsim: version, Seed: fmt.Sprintf("%#x", seed), Mutant: mutant,
		Invariant: invariant, Message: message, Plan: faults.PlanLines(shrunk), Scenario: scenario}
	e.Overrides.Faults = o.Kinds
	if o.Policy != nil {
		e.Overrides.Policy = json.RawMessage(policyJSON(o.Policy))
	}
	return e, nil
}

func policyJSON(p *loop.RetryPolicy) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"mode":%q`, p.Mode)
	if p.Mode == loop.ModeNormal {
		codes, _ := json.Marshal(p.RetryableCodes)
		fmt.Fprintf(&b, `,"maxRetries":%d,"retryableCodes":%s`, p.MaxRetries, codes)
	}
	fmt.Fprintf(&b, `,"backoff":{"initialDelayMs":%s,"maxDelayMs":%s,"jitterRatio":%s}}`,
		num(p.InitialDelayMs), num(p.MaxDelayMs), num(p.JitterRatio))
	return b.String()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Written is what Entry.Write did.
type Written int

const (
	// EntryKept: an entry of the same plan was there already, and is kept.
	EntryKept Written = iota
	// EntryNew: the entry was written.
	EntryNew
	// EntryReplaced: what was there under the entry's name did not read
	// as an entry (empty, cut short, another file), and the entry
	// replaced it.
	EntryReplaced
)

// Write writes the entry into dir as [<mutant>-]<invariant>-<plan>.json,
// where <plan> is a hash of the shrunk plan (FileName): the seeds that
// shrink to the same plan for the same invariant share one entry, and the
// first one written is kept, even against another process writing the
// same corpus. A file of the name that does not read as an entry is
// replaced (reported as EntryReplaced, with why it did not read: a corpus
// that kept it said "already there" and pointed at a file replay
// refused). On an error, nothing was written.
func (e *Entry) Write(dir string) (path string, did Written, broken error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", EntryKept, nil, err
	}
	path = filepath.Join(dir, e.FileName())
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return "", EntryKept, nil, err
	}
	data = append(data, '\n')
	written, err := atomicfile.WriteNew(path, data)
	switch {
	case err != nil:
		return "", EntryKept, nil, err
	case written:
		return path, EntryNew, nil, nil
	}
	if broken = LoadEntry(path).Err; broken == nil {
		return path, EntryKept, nil, nil
	}
	if err := atomicfile.Write(path, data); err != nil {
		return "", EntryKept, nil, err
	}
	return path, EntryReplaced, broken, nil
}

// FileName is the entry's file name: what it violates, and a hash of its
// plan's lines, listener order and overrides.
func (e *Entry) FileName() string {
	// The failure's shape: the plan's lines, the listener order and the
	// flags, not the configuration drawn around them (two seeds that
	// shrink to the same plan under two drawn policies are one failure).
	var order struct {
		ListenerOrder []string `json:"listenerOrder"`
	}
	json.Unmarshal(e.Scenario, &order)
	var policy bytes.Buffer
	json.Compact(&policy, e.Overrides.Policy)
	h := sha256.New()
	for _, part := range [][]string{e.Plan, order.ListenerOrder, e.Listeners, {policy.String()}, e.Overrides.Faults} {
		h.Write([]byte(strings.Join(part, "\n")))
		h.Write([]byte{0})
	}
	name := string(e.Invariant) + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	if e.Mutant != "" {
		name = e.Mutant + "-" + name
	}
	return name + ".json"
}

// Failure says how an entry fails, apart from the plan that makes it
// fail: the code it fails under (mutant, system, view code, listeners,
// flags), the invariant, and the violation's message with every number
// in it made "N". Two entries of one Failure are one failure reached by
// two paths, the way a fuzzer counts two inputs that crash at one place
// as one crash: a campaign keeps the first and points the other seeds at
// it.
func (e *Entry) Failure() string {
	var policy bytes.Buffer
	json.Compact(&policy, e.Overrides.Policy)
	return strings.Join([]string{e.Mutant, e.System, e.View, strings.Join(e.Listeners, ","), policy.String(),
		strings.Join(e.Overrides.Faults, ","), string(e.Invariant), numbersOut(e.Message)}, "\x00")
}

// numbersOut is a message with each run of digits made "N": "attempt 3
// of turn 2 step 1" and "attempt 2 of turn 1 step 2" say one thing.
func numbersOut(msg string) string {
	var b strings.Builder
	digits := false
	for _, r := range msg {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// LoadedEntry is an entry read from the corpus, or the reason it could
// not be.
type LoadedEntry struct {
	Path     string
	Entry    *Entry
	Scenario *sim.Scenario
	Err      error
}

// LoadCorpus reads every *.json entry of dir in name order. An entry that
// does not parse, or whose format is unknown, comes back with its error:
// never skipped silently, never a crash. A missing folder is an empty
// corpus.
func LoadCorpus(dir string) []LoadedEntry {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	var out []LoadedEntry
	for _, p := range paths {
		out = append(out, LoadEntry(p))
	}
	return out
}

// LoadEntry reads one corpus entry.
func LoadEntry(path string) LoadedEntry {
	le := LoadedEntry{Path: path}
	data, err := inputfile.Read(path)
	if err != nil {
		le.Err = err
		return le
	}
	le.Entry, le.Scenario, le.Err = parseEntry(data)
	return le
}

// parseEntry reads a corpus entry's bytes: the entry and its scenario.
func parseEntry(data []byte) (*Entry, *sim.Scenario, error) {
	var e Entry
	if err := strictjson.Check(data); err != nil {
		return nil, nil, fmt.Errorf("not a corpus entry: %v", err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, nil, fmt.Errorf("not a corpus entry: %v", strictjson.Describe(err))
	}
	if e.Format != corpusFormat {
		if e.Format == 0 && len(e.Plan) == 0 && len(e.Scenario) == 0 {
			// No field of an entry's: most likely a scenario file.
			return nil, nil, fmt.Errorf("not a corpus entry: it has no format, plan or scenario field (a scenario file? simrun scenario runs one)")
		}
		return nil, nil, fmt.Errorf("corpus format %d, but this build reads format %d", e.Format, corpusFormat)
	}
	s, err := sim.ParseScenario(e.Scenario)
	if err != nil {
		return nil, nil, fmt.Errorf("its scenario: %v", err)
	}
	return &e, s, nil
}

// ParseOverrides reads the overrides of an entry back.
func (e *Entry) ParseOverrides() (faults.Overrides, error) {
	o := faults.Overrides{Kinds: e.Overrides.Faults}
	if len(e.Overrides.Policy) > 0 {
		p, err := retry.ParsePolicy(e.Overrides.Policy)
		if err != nil {
			return o, err
		}
		o.Policy = p
	}
	return o, nil
}

// CheckPlugged says which listener the entry was made with is not among
// the plug-ins of this run.
func (e *Entry) CheckPlugged(ls []sim.Listener) error {
	for _, name := range e.Listeners {
		if !slices.ContainsFunc(ls, func(l sim.Listener) bool { return l.Name == name }) {
			return fmt.Errorf("made with the listener %q plugged in, which this run has not (a simrun that knows it is a main calling simrun.Main with it)", name)
		}
	}
	return nil
}
