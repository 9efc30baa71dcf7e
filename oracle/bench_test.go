package oracle_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// BenchmarkCheckSharedLogs reads and checks every real DSH log from memory,
// the work 'simrun check' does per file, and reports events per second.
func BenchmarkCheckSharedLogs(b *testing.B) {
	dir, files := sharedlogs.Files(b)
	var logs [][]byte
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			b.Fatal(err)
		}
		logs = append(logs, data)
	}
	benchmarkCheck(b, logs)
}

// BenchmarkCheckRetryHeavy reads and checks a generated v1 log of 200 turns,
// each with a two-retry SERVER chain; every tenth turn exhausts it and ends
// with an error, the others go on to a tool-call step and a streamed reply.
func BenchmarkCheckRetryHeavy(b *testing.B) {
	benchmarkCheck(b, [][]byte{retryHeavyLog(200)})
}

func benchmarkCheck(b *testing.B, logs [][]byte) {
	b.ReportAllocs()
	size := 0
	for _, data := range logs {
		size += len(data)
	}
	b.SetBytes(int64(size))
	events := 0
	for b.Loop() {
		for _, data := range logs {
			_, evs, err := session.ReadAll(bytes.NewReader(data), session.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if vs := oracle.Check(evs, oracle.Options{}); len(vs) > 0 {
				b.Fatalf("violations: %v", vs)
			}
			events += len(evs)
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

func retryHeavyLog(turns int) []byte {
	data, _ := io.ReadAll(&retryHeavyReader{turns: turns})
	return data
}

// retryHeavyReader writes the log of retryHeavyLog a turn at a time, so
// that a log of any length can be read without being held.
type retryHeavyReader struct {
	turns, turn int
	lb          logBuilder
	buf         []byte
}

func (r *retryHeavyReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.turn == 0 {
			r.buf = append(r.buf, `{"type":"session","version":1,"id":"bench","createdAt":0,"delegationDepth":0}`+"\n"...)
			r.turn = 1
			break
		}
		if r.turn > r.turns {
			return 0, io.EOF
		}
		heavyTurn(&r.lb, r.turn)
		r.buf = r.lb.flush(r.buf[:0])
		r.turn++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// heavyTurn writes one turn: a two-retry SERVER chain, then every tenth
// turn exhausts it and ends with an error, the others go on to a
// tool-call step and a streamed reply.
func heavyTurn(lb *logBuilder, turn int) {
	lb.turnStart(turn)
	lb.stepStart(turn, 1)
	lb.header("mock")
	id := fmt.Sprintf("r-%d", turn)
	for n := 1; n <= 2; n++ {
		lb.fail(turn, 1, "SERVER", "upstream 503")
		lb.retry(turn, 1, id, n, "2", "25", "SERVER", "upstream 503")
		lb.started(turn, 1, id, n)
	}
	if turn%10 == 0 {
		lb.fail(turn, 1, "SERVER", "upstream 503")
		lb.stepEnd(turn, 1)
		lb.turnEnd(turn, serverError("upstream 503"))
		return
	}
	c := lb.toolCallChunk(turn, 1, "call")
	f := lb.finish(turn, 1, "tool-calls")
	lb.message(turn, 1, false, []int64{c, f}, "call")
	lb.toolCall(turn, 1, "call")
	lb.add(`{"type":"tool/result","data":{"turn":%d,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call"},"role":"user","id":"tr"}},"surfaceOp":"append"}`, turn)
	lb.stepEnd(turn, 1)
	lb.stepStart(turn, 2)
	var seqs []int64
	for k := 0; k < 20; k++ {
		seqs = append(seqs, lb.text(turn, 2, "word "))
	}
	seqs = append(seqs, lb.finish(turn, 2, "stop"))
	lb.message(turn, 2, false, seqs)
	lb.stepEnd(turn, 2)
	lb.turnEnd(turn, completed)
}
