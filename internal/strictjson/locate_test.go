package strictjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type locateInner struct {
	Code string   `json:"code"`
	P    float64  `json:"p"`
	N    int      `json:"n"`
	On   bool     `json:"on"`
	Tags []string `json:"tags"`
}

type locateOuter struct {
	Failures []locateInner    `json:"failures"`
	Bursts   *locateInner     `json:"bursts"`
	Extra    map[string]any   `json:"extra"`
	Pair     [2]float64       `json:"pair"`
	Any      any              `json:"any"`
	Nested   *struct{ X int } `json:"nested"`
}

// TestLocate: the first misfit of the input, in input order, with the
// whole path; nothing when the input fits.
func TestLocate(t *testing.T) {
	tests := []struct {
		why, input, want string
	}{
		{"fits", `{"failures":[{"code":"SERVER","p":0.5,"n":3,"on":true,"tags":["a"]}],"extra":{"k":[1,{"z":2}]},"pair":[1,2],"any":{"q":1}}`, ""},
		{"an unknown key in an array element: its index and the known ones", `{"failures":[{"code":"A"},{"code":"B","prob":1}]}`,
			"failures[1].prob: unknown field (known: code, p, n, on, tags)"},
		{"a string where a number goes", `{"failures":[{"p":"x"}]}`, `failures[0].p: must be a number, got a string "x"`},
		{"a fraction where an integer goes", `{"bursts":{"n":1.5}}`, "bursts.n: must be an integer, got 1.5"},
		{"an object where an array goes", `{"failures":{}}`, "failures: must be an array, got an object"},
		{"a number where an object goes", `{"bursts":3}`, "bursts: must be an object, got 3"},
		{"the first misfit in input order, not the alphabet's", `{"zeta":1,"alpha":2}`, "zeta: unknown field (known: failures, bursts, extra, pair, any, nested)"},
		{"null fits anything", `{"bursts":null,"failures":null}`, ""},
		{"a key of its own inside a map is the map's", `{"extra":{"anything":true}}`, ""},
		{"a field without a tag is known by its Go name", `{"nested":{"X":"no"}}`, `nested.X: must be an integer, got a string "no"`},
		{"a whole value of the wrong kind", `[1]`, "the value: must be an object, got an array"},
		{"a Go array from a shorter one, which encoding/json pads ([1] read as [1, 0])", `{"pair":[1]}`, "pair: must be an array of 2 values, got 1 value"},
		{"a Go array from a longer one, which encoding/json cuts", `{"pair":[1,2,3]}`, "pair: must be an array of 2 values, got 3 values"},
	}
	for _, tt := range tests {
		err := Locate([]byte(tt.input), &locateOuter{})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.why, got, tt.want)
		}
	}
}

// FuzzLocate: Locate never panics, and it finds no misfit in an input
// that decodes, unknown fields refused, into the type, but for two that
// encoding/json lets pass on purpose: a key that matches a field only but
// for case, and a Go array's length (which it pads or cuts). It only
// explains a failure.
func FuzzLocate(f *testing.F) {
	f.Add([]byte(`{"failures":[{"code":"SERVER","p":0.5,"n":3,"on":true,"tags":["a"]}],"extra":{"k":1},"pair":[1,2]}`))
	f.Add([]byte(`{"failures":[{"prob":1}]}`))
	f.Add([]byte(`{"bursts":{"n":1.5},"nested":{"X":2}}`))
	f.Add([]byte(`[{"P":1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		located := Locate(data, &locateOuter{})
		if Check(data) != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var v locateOuter
		if dec.Decode(&v) == nil && located != nil &&
			!strings.Contains(located.Error(), "keys are matched as written") && !strings.Contains(located.Error(), "must be an array of ") {
			t.Fatalf("%q decodes, but Locate says %v", data, located)
		}
	})
}
