package strictjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/limits"
)

func TestCheck(t *testing.T) {
	for _, row := range []struct {
		why, in string
		want    string // the error's text, "" for none
	}{
		{"a plain object", `{"a": [1, 2.5e3, -0, "x\n\u00e9", true, null], "b": {}}`, ""},
		{"a duplicate key, even in a nested object", "{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2}}", `line 2, column 16: duplicate key "c"`},
		{"data after the value", `{"a":1} {"a":2}`, "line 1, column 9: data after the JSON value: {\"a\":2}"},
		{"invalid UTF-8 in a string", "{\"a\": \"\xff\"}", "line 1, column 8: invalid UTF-8 in a string"},
		{"a raw newline in a string", "{\"a\": \"x\ny\"}", "a control character inside a string"},
		{"a trailing comma", `{"a": 1,}`, "line 1, column 9: expected a key in quotes"},
		{"an empty input", "  \n", "no JSON value"},
		{"a truncated input", `{"a": [1, 2`, "expected ',' or ']' in an array"},
		{"a bad literal", `{"a": nope}`, "unexpected nope} where a value belongs"},
		{"nesting past the limit", strings.Repeat("[", 70) + strings.Repeat("]", 70), "nesting 65 deep is over the limit of 64 (raise it with --max-depth)"},
		{"a malformed number", `{"a": 01}`, "a malformed number 01}"},
	} {
		err := Check([]byte(row.in))
		switch {
		case row.want == "" && err != nil:
			t.Errorf("%s: %v", row.why, err)
		case row.want != "" && (err == nil || !strings.Contains(err.Error(), row.want)):
			t.Errorf("%s: error %v, want %q", row.why, err, row.want)
		}
	}
}

// TestCheckDepthCeiling: whatever bound is set, the check holds nesting
// to limits.MaxDepth, since it recurses a frame per level: with a bound of
// 10^8, a 3,000,000-deep input once ended in "fatal error: stack
// overflow", and 1,000,000 deep took 816 MB of stack.
func TestCheckDepthCeiling(t *testing.T) {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	for _, row := range []struct {
		why   string
		depth int
		input []byte
		want  string // "" for none
	}{
		{"a bound past the ceiling is held to it", 100_000_000, deep(200_000),
			"line 1, column 1002: nesting 1001 deep is over the limit of 1000, the most --max-depth allows"},
		{"the ceiling itself is reached", 100_000_000, deep(1001), ""},
		{"a bound under the ceiling is its own", 10, deep(12), "nesting 11 deep is over the limit of 10 (raise it with --max-depth)"},
	} {
		limits.Current.Depth = row.depth
		err := Check(row.input)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != row.want && (row.want == "" || !strings.Contains(got, row.want)) {
			t.Errorf("%s: error %q, want %q", row.why, got, row.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	if got := Printable("ok \x1b[31mred\xff é"); got != `ok \x1b[31mred\xff é` {
		t.Errorf("Printable: %q", got)
	}
}

func TestDescribe(t *testing.T) {
	var v struct {
		Rate struct {
			P float64 `json:"p"`
		} `json:"rate"`
	}
	err := Describe(json.Unmarshal([]byte(`{"rate":{"p":"high"}}`), &v))
	if err == nil || err.Error() != "rate.p: must be a number, got string" {
		t.Errorf("Describe: %v", err)
	}
	d := json.NewDecoder(strings.NewReader(`{"prob": 1}`))
	d.DisallowUnknownFields()
	if err := Describe(d.Decode(&v)); err == nil || err.Error() != `unknown field "prob"` {
		t.Errorf("Describe: %v", err)
	}
}

// FuzzCheck: Check never panics, and what it accepts encoding/json
// accepts too.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",{"b":null}]`, `{"a":1,"a":2}`, "\"\xff\"", `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("Check accepted what encoding/json refuses: %q", data)
		}
		if err != nil && Unreadable(err.Error()) != "" {
			t.Fatalf("the message shows %s: %q", Unreadable(err.Error()), err.Error())
		}
	})
}

// FuzzNumber holds validNumber to json.Valid on every span of number
// characters, the spans the check hands it.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "1.", ".5", "1e", "1e+", "1E-7", "-", "--1", "1.5e3", "12345678901234567890", "0.0e0", "+1", "1ee2", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Trim(s, "+-0123456789.eE") != "" {
			return
		}
		if got, want := validNumber([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Fatalf("validNumber(%q) = %v, json.Valid = %v", s, got, want)
		}
	})
}

// TestUnreadable: what the fuzz targets hold every refusal to.
func TestUnreadable(t *testing.T) {
	for _, row := range []struct {
		why, msg string
		flagged  bool
	}{
		{"encoding/json's own wording names a Go type", "json: cannot unmarshal string into Go value of type budget.Distribution", true},
		{"a type name as Go prints it", "latencyMs: cannot decode into type budget.Distribution", true},
		{"input that looks like a type name is input", "line 1, column 1: unexpected retry.A0 where a value belongs", false},
		{"a raw DEL from the input", "must be an object, got \"\x7f\"", true},
		{"invalid UTF-8 from the input", "got \xff", true},
		{"input that looks like a package name is input", `line 2, column 28: expected ':' after the key "retry.00000000"`, false},
		{"a plain sentence", "latencyMs.uniform: want [low, high] with 0 ≤ low ≤ high", false},
		{"encoding/json's prefix on a wrapped cause", "invalid environment: json: unknown field \"x\"", true},
		{"a key that ends in json is input", "inputs[1].00json: unknown field (known: send, followup)", false},
	} {
		if got := Unreadable(row.msg) != ""; got != row.flagged {
			t.Errorf("%s: Unreadable(%q) = %q", row.why, row.msg, Unreadable(row.msg))
		}
	}
}
