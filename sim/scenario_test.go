package sim

import (
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/limits"
)

// TestParseScenarioBoundsTheResultTotal: the tool results a scenario asks
// for are bounded together (--max-total-result-chars), not only one by
// one: 20 results of 16,000,000 characters, each under
// --max-result-chars, once took a 1.2 KB scenario to 1.14 GB. The error
// names the field of the result that passes the total, the limit and its
// flag, before that result is made.
func TestParseScenarioBoundsTheResultTotal(t *testing.T) {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	limits.Current.ResultChars, limits.Current.TotalResultChars = 100, 250
	call := func(chars string) string { return `{"name":"t","resultChars":` + chars + `}` }
	calls := func(c ...string) string { return `{"toolCalls":[` + strings.Join(c, ",") + `]}` }
	scenario := func(requests ...string) string {
		return `{"name":"x","requests":[` + strings.Join(requests, ",") + `]}`
	}
	for _, row := range []struct {
		why, input string
		want       string // the error, "" for none
	}{
		{"each under the bound of one, together at the total", scenario(calls(call("100"), call("100"), call("50"))), ""},
		{"each under the bound of one, together over the total", scenario(calls(call("100"), call("100"), call("51"))),
			"requests[0].toolCalls[2].resultChars: the tool results' total of 251 characters is over the limit of 250 (raise it with --max-total-result-chars)"},
		{"the calls of every request add up", scenario(calls(call("100"), call("100")), `{"text":"ok"}`, calls(call("100"))),
			"requests[2].toolCalls[0].resultChars: the tool results' total of 300 characters"},
		{"a failure's stream counts", scenario(calls(call("100"), call("100")),
			`{"fail":{"code":"SERVER"},"afterChunks":1,"stream":`+calls(call("100"))+`}`),
			"requests[1].stream.toolCalls[0].resultChars: the tool results' total of 300 characters"},
		{"a result written out counts too", scenario(calls(call("100"), call("100"), `{"name":"t","result":"`+strings.Repeat("r", 60)+`"}`)),
			"requests[0].toolCalls[2].result: the tool results' total of 260 characters"},
		{"the bound of one result comes first", scenario(calls(call("101"))),
			"requests[0].toolCalls[0].resultChars: 101 is over the limit of 100 (raise it with --max-result-chars)"},
	} {
		_, err := ParseScenario([]byte(row.input))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (row.want == "") != (got == "") || !strings.HasPrefix(got, row.want) {
			t.Errorf("%s: error %q, want %q", row.why, got, row.want)
		}
	}
}

// TestHugeDurationsAreWrittenReadably: a duration over the limit is named
// as the file writes it, not as a 309-digit number.
func TestHugeDurationsAreWrittenReadably(t *testing.T) {
	_, err := ParseScenario([]byte(`{"name":"x","inputs":[{"send":"hi","atMs":1e308}],"requests":[{"text":"a"}]}`))
	if err == nil || !strings.Contains(err.Error(), "inputs[0].atMs: 1e+308 ms is over the limit of 2147483647 ms") {
		t.Errorf("%v", err)
	}
}
