package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// FuzzCheckMembers: CheckMembers refuses what Check refuses, with the
// same error, and splits an object it passes into members whose values
// are each one value of it.
func FuzzCheckMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":2}]}`, ` { "k\u0061" : "v" } `, `{}`, `[1]`, `{"a":1,"a":2}`, `{"a":}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := Check(data)
		members, object, got := CheckMembers(data, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: CheckMembers says %v, Check says %v", data, got, want)
		}
		if got != nil {
			return
		}
		var top map[string]json.RawMessage
		isObject := json.Unmarshal(data, &top) == nil && top != nil
		if object != isObject {
			t.Fatalf("%q: CheckMembers says object %v, encoding/json %v", data, object, isObject)
		}
		if !object && len(members) > 0 {
			t.Fatalf("%q: members %q of what is no object", data, members)
		}
		if len(members) != len(top) {
			t.Fatalf("%q: %d members, encoding/json reads %d keys", data, len(members), len(top))
		}
		for _, m := range members {
			if v, ok := top[m.Key]; !ok || !bytes.Equal(v, m.Value) {
				t.Fatalf("%q: member %q is %q, encoding/json reads %q", data, m.Key, m.Value, v)
			}
		}
	})
}

// valueChecker is the least MemberReader: it checks, and reads nothing.
type valueChecker struct{ s *Splitter }

func (c valueChecker) ReadMember(_ []Member, data []byte, i, depth int) (int, bool) {
	return c.s.CheckValue(data, i, depth)
}

// FuzzCheckMembersReading: with a reader that checks the value it is
// handed as CheckValue does, CheckMembersReading passes what Check
// passes, no more, with the same members.
func FuzzCheckMembersReading(f *testing.F) {
	for _, s := range []string{`{"type":"t","data":{"a":1},"seq":0}`, `{"data":{"a":01}}`, `{"data":"x\\q"}`, `{"data":[1,{"b":2,"b":3}]}`, `{"data":1,"data":2}`, `{"data":{"a":"}"},"x":}`, `{"data":[[[]]]}`, `[1]`, `{"x":{"data":1,"data":1}}`} {
		f.Add([]byte(s), uint8(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxDepth uint8) {
		saved := limits.Current
		defer func() { limits.Current = saved }()
		limits.Current.Depth = int(maxDepth%70) + 1
		var s Splitter
		want, wantObject, wantErr := CheckMembers(data, nil)
		got, object, err := s.CheckMembersReading(data, nil, "data", valueChecker{&s})
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: CheckMembersReading says %v, Check %v", data, err, wantErr)
		}
		if err != nil {
			return
		}
		if object != wantObject || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("%q: members %q (object %v), CheckMembers' %q (%v)", data, got, object, want, wantObject)
		}
	})
}

// FuzzCheckValue: a value CheckValue passes whole, nested depth deep, is
// one Check passes nested as deep.
func FuzzCheckValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2]}`, `"x"`, `01`, `[1,`, `{"a":1,"a":2}`, `true`, `nul`, `[[[[1]]]]`} {
		f.Add([]byte(s), uint8(0), uint8(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, maxDepth uint8) {
		saved := limits.Current
		defer func() { limits.Current = saved }()
		limits.Current.Depth = int(maxDepth%70) + 1
		d := int(depth % 4)
		if len(data) == 0 || data[0] == ' ' || data[0] == '\t' || data[0] == '\n' || data[0] == '\r' {
			return // a value, not space, starts where CheckValue is asked
		}
		var s Splitter
		end, ok := s.CheckValue(data, 0, d)
		wrapped := append([]byte(strings.Repeat("[", d)), data...)
		wrapped = append(wrapped, strings.Repeat("]", d)...)
		passes := Check(data) == nil && Check(wrapped) == nil          // one value, passed nested
		whole := ok && len(bytes.TrimLeft(data[end:], " \t\n\r")) == 0 // space may follow the value
		if whole && !passes {
			t.Fatalf("%q at depth %d: CheckValue passes it whole, Check refuses it nested so", data, d)
		}
		if passes && !whole {
			t.Fatalf("%q at depth %d: Check passes it nested so, CheckValue says %v up to %d", data, d, ok, end)
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
