package oracle_test

import (
	"fmt"

	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// ExampleCheck checks a log: the one a scenario writes holds every
// invariant; cut before its turn/end, it no longer does.
func ExampleCheck() {
	s, err := sim.ParseScenario([]byte(`{
	  "name": "auth-fails-the-turn",
	  "inputs": [{"send": "Fix the build"}],
	  "requests": [{"fail": {"code": "AUTH", "message": "bad key"}}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	events := sim.Run(s).Events
	fmt.Println(len(oracle.Check(events, oracle.Options{})), "violations in the whole log")
	for _, v := range oracle.Check(events[:len(events)-1], oracle.Options{}) {
		fmt.Println(v.Line())
	}
	// Output:
	// 0 violations in the whole log
	// log-well-formed turn 1 seqs 8: turn 1 never ends: the log stops inside it (after a crash, --repair closes it as DSH's loader does)
}
