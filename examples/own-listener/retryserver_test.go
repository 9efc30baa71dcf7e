package ownlistener

import (
	"testing"

	"github.com/turnsim/turnsim/campaign"
)

func TestRetryServer(t *testing.T) {
	campaign.Check(t, campaign.Listeners(RetryServer()), campaign.Runs(200))
}
