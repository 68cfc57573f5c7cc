package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTLSFaultKinds_LeaveOutOnlyTheAnswersThatThePacketsHide(t *testing.T) {
	kinds := TLSFaultKinds()
	for _, k := range packetFaults {
		assert.NotContains(t, kinds, k)
	}
	assert.Len(t, kinds, len(FaultKinds())-len(packetFaults))
	assert.Contains(t, kinds, FaultCut)
	assert.Contains(t, kinds, FaultOneWayRequests)
}

func TestReport_OverTLSNoDroppedAnswerIsNoProblem(t *testing.T) {
	r := NewReport(MinBiteRun, 7, 3)
	r.HoldsInterrupted, r.ExpiredUnderHolder = 1, 1
	assert.Contains(t, r.Problems(), "no answer was dropped in "+MinBiteRun.String())
	r.TLS = true
	assert.Empty(t, r.Problems())
	assert.Contains(t, r.Summary(), "tls=true")
}
