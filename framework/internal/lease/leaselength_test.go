package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLeaseLength_SubtractsThePingGapAndTheLagOnlyWithALag(t *testing.T) {
	for _, tc := range []struct {
		granted  time.Duration
		margin   float64
		lag      time.Duration
		want     time.Duration
		keepable bool
	}{
		{3 * time.Second, 0.05, 0, 2850 * time.Millisecond, true},
		{3 * time.Second, 0, 0, 3 * time.Second, true},
		{3 * time.Second, 0.5, 0, 1500 * time.Millisecond, true},
		{3 * time.Second, 0.05, 500 * time.Millisecond, 1350 * time.Millisecond, true},
		{3 * time.Second, 0.05, 850 * time.Millisecond, 1000 * time.Millisecond, false}, // runs out at the next ping
		{3 * time.Second, 0.05, 5 * time.Second, 0, false},
	} {
		assert.Equal(t, tc.want, leaseLength(tc.granted, tc.margin, tc.lag), "%+v", tc)
		assert.Equal(t, tc.keepable, Keepable(tc.granted, tc.margin, tc.lag), "%+v", tc)
	}
}
