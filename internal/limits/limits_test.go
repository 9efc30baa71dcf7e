package limits

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parse registers the flags on a fresh set over the defaults and parses
// args; it returns the bounds then in force and the parse error's text.
func parse(t *testing.T, args ...string) (Limits, string) {
	t.Helper()
	saved := Current
	t.Cleanup(func() { Current = saved })
	Current = Default
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Register(fs)
	err := fs.Parse(args)
	if err != nil {
		return Current, err.Error()
	}
	return Current, ""
}

// TestFlagsRefuseWhatBoundsNothing: a limit flag takes a positive number
// within its ceiling, and its error names the flag. NaN once disabled
// --max-duration-ms (it compares false with every duration), a negative
// --max-depth refused every input with "nesting 0 deep is over the limit
// of -1", and --max-depth 100000000 let a deep input overflow the stack.
func TestFlagsRefuseWhatBoundsNothing(t *testing.T) {
	for _, row := range []struct {
		why, flag, value string
		want             string // the error's text, "" for none
	}{
		{"NaN compares false with every duration", FlagDurationMs, "NaN", `invalid value "NaN" for flag -max-duration-ms: must be a finite number of ms`},
		{"Inf bounds nothing", FlagDurationMs, "Inf", "-max-duration-ms: must be a finite number of ms"},
		{"a float too large for float64 is Inf", FlagDurationMs, "1e400", "-max-duration-ms: must be a finite number of ms"},
		{"a negative duration refuses every input", FlagDurationMs, "-1", "-max-duration-ms: must be > 0"},
		{"zero refuses every duration", FlagDurationMs, "0", "-max-duration-ms: must be > 0"},
		{"virtual time is int64 ns", FlagDurationMs, "1e13", "-max-duration-ms: must be at most 1000000000000 ms"},
		{"not a number", FlagDurationMs, "soon", "-max-duration-ms: must be a number of ms > 0"},
		{"a year is fine", FlagDurationMs, "31536000000", ""},
		{"a negative depth refuses every input", FlagDepth, "-1", "-max-depth: must be ≥ 1: a bound of -1 refuses every input"},
		{"zero depth", FlagDepth, "0", "-max-depth: must be ≥ 1"},
		{"past the recursion's ceiling", FlagDepth, "100000000", "-max-depth: must be at most 1000, the ceiling of this bound"},
		{"the ceiling itself", FlagDepth, "1000", ""},
		{"a body past a gigabyte: four buffers of it could not be made", FlagBodyBytes, "4611686018427387904", "-max-body-bytes: must be at most 1073741824, the ceiling of this bound"},
		{"an octal-looking number is not read as octal", FlagDepth, "017", ""},
		{"hex is not a decimal", FlagDepth, "0x10", "-max-depth: must be a whole number ≥ 1 (decimal)"},
		{"a fraction of a byte", FlagLineBytes, "1.5", "-max-line-bytes: must be a whole number ≥ 1 (decimal)"},
		{"past int64", FlagFileBytes, "99999999999999999999", "-max-file-bytes: is too large"},
		{"zero entries", FlagEntries, "0", "-max-entries: must be ≥ 1"},
		{"negative results", FlagResultChars, "-5", "-max-result-chars: must be ≥ 1"},
		{"negative total", FlagTotalResultChars, "-5", "-max-total-result-chars: must be ≥ 1"},
		{"zero turn events", FlagTurnEvents, "0", "-max-turn-events: must be ≥ 1"},
		{"zero members", FlagPackedMembers, "0", "-max-packed-members: must be ≥ 1"},
		{"zero body", FlagBodyBytes, "0", "-max-body-bytes: must be ≥ 1"},
	} {
		_, got := parse(t, "-"+row.flag, row.value)
		switch {
		case row.want == "" && got != "":
			t.Errorf("%s: --%s %s: %s", row.why, row.flag, row.value, got)
		case row.want != "" && !strings.Contains(got, row.want):
			t.Errorf("%s: --%s %s: error %q, want %q", row.why, row.flag, row.value, got, row.want)
		}
	}
}

// TestFlagsSetTheBounds: a value a flag accepts is the bound in force,
// and without flags the defaults are.
func TestFlagsSetTheBounds(t *testing.T) {
	got, err := parse(t)
	if err != "" {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default, got); diff != "" {
		t.Errorf("no flags (-want +got):\n%s", diff)
	}
	got, err = parse(t, "--max-line-bytes", "200", "--max-duration-ms", "1.5", "--max-depth", "017",
		"--max-total-result-chars", "9", "--max-turn-events", "10", "--max-packed-members", "3", "--max-file-bytes", "4",
		"--max-entries", "5", "--max-result-chars", "6", "--max-body-bytes", "7")
	if err != "" {
		t.Fatal(err)
	}
	want := Limits{LineBytes: 200, DurationMs: 1.5, Depth: 17, TotalResultChars: 9, TurnEvents: 10, PackedMembers: 3,
		FileBytes: 4, Entries: 5, ResultChars: 6, BodyBytes: 7}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("every flag given (-want +got):\n%s", diff)
	}
}

// TestFlagsPrintTheirDefaults: the help shows each default as a number,
// with the unit the usage names.
func TestFlagsPrintTheirDefaults(t *testing.T) {
	saved := Current
	defer func() { Current = saved }()
	Current = Default
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var b strings.Builder
	fs.SetOutput(&b)
	Register(fs)
	fs.PrintDefaults()
	for _, want := range []string{
		"-max-duration-ms ms\n", "(default 2147483647)",
		"-max-line-bytes bytes\n", "(default 67108864)",
		"-max-depth levels\n", "(default 64)",
		"-max-turn-events events\n", "(default 1048576)",
		"-max-total-result-chars chars\n", "(default 67108864)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the help lacks %q:\n%s", want, b.String())
		}
	}
}

// TestNumber: figures as an input writes them, huge and tiny ones in
// exponent form (1e308 printed as 309 digits).
func TestNumber(t *testing.T) {
	for in, want := range map[float64]string{4000000: "4000000", 2147483647: "2147483647", 1.5: "1.5", 0: "0", 1e308: "1e+308", -1e300: "-1e+300", 1e-7: "1e-07", 1e20: "100000000000000000000"} {
		if got := Number(in); got != want {
			t.Errorf("Number(%v) = %q, want %q", in, got, want)
		}
	}
}
