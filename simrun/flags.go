package simrun

import (
	"flag"
	"io"

	"github.com/turnsim/turnsim/internal/limits"
)

// errHelp is returned when -h was asked for: the usage is printed, exit 0.
var errHelp = flag.ErrHelp

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments ("simrun check logs/ --view"), and returns the
// positional ones. Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name string, stderr io.Writer, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// Every command reads input under the same bounds (package limits),
	// each raised by its flag; a command starts from the defaults.
	limits.Current = limits.Default
	limits.Register(fs)
	fs.Usage = func() {
		io.WriteString(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}
