package serve

import (
	"context"
	"sync/atomic"
	"time"
)

// bufferPool is the few buffers that bodies too big to read on their own
// (over SmallBodyBytes) are read into: each is allocated once, at the
// body bound, on first use, and reused, so that memory stays below their
// number times the bound however many clients push big bodies together.
type bufferPool struct {
	free chan []byte
	// waiting counts the requests waiting for a buffer; tests read it to
	// know that a request is parked.
	waiting atomic.Int32
}

func newBufferPool(n int) *bufferPool {
	p := &bufferPool{free: make(chan []byte, n)}
	for range n {
		p.free <- nil // allocated on first use, at MaxBodyBytes
	}
	return p
}

// errPoolWait says why take gave no buffer.
type errPoolWait int

const (
	poolDeadline errPoolWait = iota + 1 // the deadline passed first
	poolGone                            // the request's context ended first
)

// take takes a free buffer, or waits for one until ctx ends or the
// deadline passes. waited
// is true when it had to wait: time in which a client may have gone
// without the server being able to see it (ServeHTTP's gone).
func (p *bufferPool) take(ctx context.Context, deadline time.Time) (buf []byte, waited bool, why errPoolWait) {
	select {
	case buf = <-p.free:
		return buf, false, 0
	default:
	}
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case buf = <-p.free:
		return buf, true, 0
	case <-ctx.Done():
		return nil, true, poolGone
	case <-t.C:
		return nil, true, poolDeadline
	}
}

// put gives a buffer back, as it is then (allocated by its user if it
// had to be).
func (p *bufferPool) put(buf []byte) { p.free <- buf }
