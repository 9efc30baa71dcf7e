package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/turnsim/turnsim/internal/limits"
)

// errHelp is returned when -h was asked for: the usage is printed, exit 0.
var errHelp = flag.ErrHelp

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments ("simrun check logs/ --view"), and returns the
// positional ones. Everything after "--" is positional.
//
// A flag that takes a value may be given once: the flag package lets
// the last of two win, so that 'run --policy a.json --policy b.json' ran
// b.json alone without a word. Flags meant to repeat (budget's --policy,
// --fail, --outage, --assert) are their own kind, repeated.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(*repeated); !ok {
			f.Value = &once{Value: f.Value}
		}
	})
	defer unwrapOnce(fs)
	// A bad flag is said in one line with the command's name, and where
	// the flags are listed: the flag package followed the error with the
	// whole usage, sixty lines that pushed it off the screen.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			fs.SetOutput(out)
			if errors.Is(err, flag.ErrHelp) {
				usage()
			} else {
				fmt.Fprintf(out, "simrun %s: %v ('simrun %s -h' lists its flags)\n", fs.Name(), err, fs.Name())
			}
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
		// The flags' own values print their defaults: the flag package
		// makes a zero value of each to compare, which a wrapped one has
		// not.
		unwrapOnce(fs)
		fs.PrintDefaults()
	}
	return fs
}

// unwrapOnce gives each flag back its own value, once parsing is done.
func unwrapOnce(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if o, ok := f.Value.(*once); ok {
			f.Value = o.Value
		}
	})
}

// once is a flag's value that refuses a second setting.
type once struct {
	flag.Value
	set bool
}

func (o *once) Set(v string) error {
	if o.set && !o.IsBoolFlag() { // --json twice says one thing
		return errors.New("given twice: give it once")
	}
	o.set = true
	return o.Value.Set(v)
}

// IsBoolFlag keeps a boolean flag one that takes no value.
func (o *once) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// checkJobs refuses a -j outside 1..limits.MaxWorkers (each worker is a
// goroutine, and with --sut dsh a Node process).
func checkJobs(j int) error {
	if j < 1 || j > limits.MaxWorkers {
		return fmt.Errorf("-j %d: from 1 to %d", j, limits.MaxWorkers)
	}
	return nil
}

// notAFolder says why dir cannot be the folder a flag writes into: it is
// a file, or one of the folders it would be made in is (hunt --corpus
// FILE/sub once ran the whole search and then could write nothing). ""
// when it is a folder or can be made.
func notAFolder(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		switch {
		case err == nil && info.IsDir():
			return ""
		case err == nil && d == filepath.Clean(dir):
			return fmt.Sprintf("%s: not a folder", dir)
		case err == nil:
			return fmt.Sprintf("%s: %s is not a folder, so it cannot be made", dir, d)
		}
		if next := filepath.Dir(d); next == d {
			return ""
		}
	}
}
