package view_test

import (
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// A turn whose SERVER failure was retried once and then failed again
// renders the retry row beside the turn-error node.
func ExampleDerive() {
	log := `{"type":"session","version":1,"id":"example","createdAt":0,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
{"type":"request/header","seq":2,"time":0,"data":{"header":{"config":{"provider":"mock","model":"m"}},"reason":"initial"}}
{"type":"assistant/chunk","seq":3,"time":10,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"upstream 503","code":"SERVER"}}}}}
{"type":"llm/retry","seq":4,"time":10,"data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"k","retry":1,"maxRetries":1,"delayMs":1500,"failure":{"message":"upstream 503","code":"SERVER"}}}
{"type":"llm/retry-started","seq":5,"time":1510,"data":{"retryId":"r","turn":1,"step":1,"retry":1}}
{"type":"assistant/chunk","seq":6,"time":1520,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"upstream 503","code":"SERVER"}}}}}
{"type":"step/end","seq":7,"time":1520,"data":{"turn":1,"step":1}}
{"type":"turn/end","seq":8,"time":1520,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"upstream 503","code":"SERVER"}}}}
`
	_, events, err := session.ReadAll(strings.NewReader(log), session.ReadOptions{})
	if err != nil {
		panic(err)
	}
	nodes := view.Derive(events)
	for _, row := range nodes.ModelRetries {
		fmt.Println(row.Label())
	}
	for _, e := range nodes.TurnErrors {
		fmt.Println(e.Text())
	}
	// Output:
	// Retried model request (1/1) · 2s
	// This turn failed · upstream 503 · SERVER
}
