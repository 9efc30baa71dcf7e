// Command simrun is turnsim's command line: see package simrun, and
// 'simrun -h'.
package main

import (
	"os"

	"github.com/turnsim/turnsim/simrun"
)

func main() { os.Exit(simrun.Main(os.Args[1:])) }
