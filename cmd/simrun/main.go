// Command simrun is turnsim's command line: see package simrun, and
// 'simrun -h'. It is simrun.Main with the commands that run the real DSH
// through its web host built in (conformance, dsh-web, webui).
package main

import (
	"os"

	"github.com/turnsim/turnsim/conformance/realdsh"
	"github.com/turnsim/turnsim/simrun"
)

func main() {
	simrun.UseRealDSH(realdsh.Commands{})
	os.Exit(simrun.Main(os.Args[1:]))
}
