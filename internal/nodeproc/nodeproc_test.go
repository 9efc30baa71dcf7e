package nodeproc

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// echo answers each request line {"id":N,"do":…} as told: "ok" echoes
// the id, "fail" answers an error, "wrong" another request's id, "junk"
// a line that is not JSON, "die" writes to stderr and exits.
const echo = `
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const r = JSON.parse(line);
  switch (r.do) {
  case 'ok': process.stdout.write(JSON.stringify({ id: r.id, pid: process.pid }) + '\n'); break;
  case 'fail': process.stdout.write(JSON.stringify({ id: r.id, error: 'it went wrong\nat line 2' }) + '\n'); break;
  case 'wrong': process.stdout.write(JSON.stringify({ id: r.id + 1 }) + '\n'); break;
  case 'junk': process.stdout.write('not json\n'); break;
  case 'die': process.stderr.write('the echo fell over\n'); process.exit(3);
  }
});
`

type answer struct {
	ID    int64  `json:"id"`
	PID   int    `json:"pid"`
	Error string `json:"error"`
}

func (a *answer) Envelope() (int64, string) { return a.ID, a.Error }

func startEcho(t *testing.T) *Process {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	p, err := Start(Program{Name: "the echo", Node: "node", Dir: t.TempDir(), File: "echo.cjs", Source: []byte(echo)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func call(p *Process, id int64, do string) (answer, error) {
	var a answer
	err := p.Call(fmt.Appendf(nil, `{"id":%d,"do":%q}`+"\n", id, do), id, "request", &a)
	return a, err
}

func TestCall(t *testing.T) {
	tests := []struct {
		do, why string
		// wantErr is part of the error; dead whether the process may
		// not be used again.
		wantErr string
		dead    bool
	}{
		{"ok", "an answer with the request's id is the call's", "", false},
		{"fail", "an error the program answers is the call's, and the process goes on", "the echo: it went wrong", false},
		{"wrong", "another request's answer means every later one is stale", "the echo answered request 8 for request 7", true},
		{"junk", "a line that is not JSON means the same", "the echo answered what is not JSON", true},
		{"die", "a program that exits says what it wrote on stderr", "the echo fell over", true},
	}
	for _, tt := range tests {
		t.Run(tt.do, func(t *testing.T) {
			p := startEcho(t)
			a, err := call(p, 7, tt.do)
			if tt.wantErr == "" {
				if err != nil || a.ID != 7 {
					t.Fatalf("%s: got %+v, %v", tt.why, a, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("%s: got error %v, want one containing %q", tt.why, err, tt.wantErr)
			}
			if p.Dead() != tt.dead {
				t.Errorf("%s: Dead() = %v, want %v", tt.why, p.Dead(), tt.dead)
			}
			if !tt.dead {
				if _, err := call(p, 8, "ok"); err != nil {
					t.Errorf("the process should go on answering: %v", err)
				}
			}
		})
	}
}

func TestCloseEndsAProcessThatWaitsForInput(t *testing.T) {
	p := startEcho(t)
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !p.Dead() {
		t.Error("a closed process should be dead")
	}
}

// child is a Process as a pool keeps one.
type child struct{ *Process }

func TestPoolReusesLiveChildrenAndReplacesDeadOnes(t *testing.T) {
	starts := 0
	var mu sync.Mutex
	pool := NewPool(func() (child, error) {
		mu.Lock()
		starts++
		mu.Unlock()
		return child{startEcho(t)}, nil
	}, 2)
	t.Cleanup(func() { pool.Close() })

	pid := func(do string) (int, error) {
		var got int
		err := pool.Use(func(c child) error {
			a, err := call(c.Process, 1, do)
			got = a.PID
			return err
		})
		return got, err
	}
	first, err := pid("ok")
	if err != nil {
		t.Fatal(err)
	}
	again, err := pid("ok")
	if err != nil || again != first {
		t.Fatalf("a free child should be reused: pid %d then %d (%v)", first, again, err)
	}
	if _, err := pid("die"); err == nil {
		t.Fatal("a child that died should fail its use")
	}
	after, err := pid("ok")
	if err != nil || after == first {
		t.Fatalf("a dead child should be replaced: pid %d then %d (%v)", first, after, err)
	}
	if starts != 2 {
		t.Errorf("started %d children, want 2 (one, then its replacement)", starts)
	}
}

func TestPoolSaysWhyAChildCouldNotStart(t *testing.T) {
	pool := NewPool(func() (child, error) { return child{}, errors.New("no node here") }, 1)
	err := pool.Use(func(child) error { return nil })
	if err == nil || err.Error() != "no node here" {
		t.Fatalf("got %v, want the start's error", err)
	}
	// The failed start gave its room back: the next use tries again
	// rather than waiting forever for a child that never came.
	if err := pool.Use(func(child) error { return nil }); err == nil {
		t.Fatal("the second use should have tried to start again and failed")
	}
}
