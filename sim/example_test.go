package sim_test

import (
	"fmt"

	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// A scenario in its file format: one message, a request whose stream
// breaks after two chunks, and the user's cancel after the second.
const cancelMidStream = `{
  "name": "cancel-mid-stream",
  "inputs": [{"send": "Start a long task"}],
  "requests": [
    {"fail": {"code": "TRANSPORT", "message": "never reached"}, "afterChunks": 2, "stream": {"text": "partial"}}
  ],
  "world": [{"do": "cancel", "cause": "user", "after": "assistant/chunk", "nth": 2}]
}`

// ExampleParseScenario reads a scenario; a bad field is named by its
// path.
func ExampleParseScenario() {
	s, err := sim.ParseScenario([]byte(cancelMidStream))
	fmt.Println(s.Name, len(s.Requests), err)
	_, err = sim.ParseScenario([]byte(`{"inputs": [{"send": 7}]}`))
	fmt.Println(err)
	// Output:
	// cancel-mid-stream 1 <nil>
	// inputs[0].send: must be a string, got 7
}

// ExampleRun runs a scenario in the deterministic world: the same
// scenario gives the same log, byte for byte, on any machine. The cancel
// lands after the second chunk: the partial message is kept, and the
// turn ends without a retry.
func ExampleRun() {
	s, _ := sim.ParseScenario([]byte(cancelMidStream))
	res := sim.Run(s)
	for _, e := range res.Events {
		fmt.Println(e.Seq, e.Type())
	}
	fmt.Println(len(oracle.Check(res.Events, oracle.Options{})), "violations")
	// Output:
	// 0 agent/inbox/spliced
	// 1 turn/start
	// 2 agent/inbox/spliced
	// 3 step/start
	// 4 user/message
	// 5 request/header
	// 6 request/context
	// 7 assistant/chunk
	// 8 assistant/chunk
	// 9 assistant/message
	// 10 step/end
	// 11 turn/end
	// 0 violations
}
