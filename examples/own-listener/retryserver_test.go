package ownlistener

import (
	"testing"

	"github.com/turnsim/turnsim/simtest"
)

func TestRetryServer(t *testing.T) {
	simtest.Check(t, simtest.Listeners(RetryServer()), simtest.Runs(200))
}
