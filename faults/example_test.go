package faults_test

import (
	"fmt"

	"github.com/turnsim/turnsim/faults"
)

// ExampleDraw draws a seed's configuration and fault plan: the same seed
// always draws the same, and the plan reads as the lines a failure's
// report prints.
func ExampleDraw() {
	c, s := faults.Draw(2, faults.Overrides{})
	again, _ := faults.Draw(2, faults.Overrides{})
	fmt.Println(c.String() == again.String())
	fmt.Println(c.PolicyName, c.ListenerOrder)
	for _, l := range faults.PlanLines(s) {
		fmt.Println(l)
	}
	// Output:
	// true
	// normal [retry compaction]
	// request 1: fail EMPTY_RESPONSE
	// request 2: tool calls read
	// request 3: hang
	// request 4: tool calls read
	// request 5: hang
	// request 6: text
	// input 1: send "Work through the task in st..." at 0ms
	// world: cancel hook at 20163ms
}
