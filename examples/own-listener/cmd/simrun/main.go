// Command simrun is turnsim's simrun with retry-server registered, so that
// it replays the plans go test keeps in testdata/turnsim:
//
//	go run ./cmd/simrun replay testdata/turnsim/ENTRY.json
package main

import (
	"os"

	"example.com/ownlistener"
	"github.com/turnsim/turnsim/simrun"
)

func main() { os.Exit(simrun.Main(os.Args[1:], ownlistener.RetryServer())) }
