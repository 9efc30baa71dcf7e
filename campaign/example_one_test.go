package campaign_test

import (
	"os"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/mutants"
)

// ExampleConfig_One: one seed of a campaign against the zoo's silent
// listener (a listener of one's own whose wait ignores cancellation),
// shrunk and printed as go test prints it; no corpus is written.
func ExampleConfig_One() {
	m, _ := mutants.Find("listener-wait-ignores-cancel")
	c := campaign.Config{Sim: m.Options, Repro: campaign.Repro{GoTest: "go test -run '^TestMine$' -sim.seed=%#x"}}
	r := c.One(0x6)
	r.Write(os.Stdout, false)
	// Output:
	// seed 0x6: cancel-takes-effect-at-once turn 1 step 1 seqs 8,9: turn 1 ended 55 ms after the cancel (disposed) that landed in it before seq 8: a wait outlasted the turn signal
	//   shrunk plan (3 lines, 43 shrink runs):
	//     listeners: server-retry, retry, compaction
	//     request 1: fail SERVER 500
	//     input 1: send "Work through the task in st..." at 0ms
	//     world: cancel user after listener-wait #1
	//   the shrunk plan gives: cancel-takes-effect-at-once turn 1 step 1 seqs 8,9: turn 1 ended 100 ms after the cancel (user) that landed in it before seq 8: a wait outlasted the turn signal
	//   reproduce: go test -run '^TestMine$' -sim.seed=0x6
	//              simrun replay --seed 0x6
}
