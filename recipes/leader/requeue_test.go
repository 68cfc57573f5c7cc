package leader

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFailedBackoff_DoublesWhileTheFunctionKeepsFailing(t *testing.T) {
	var b failedBackoff
	var waits []time.Duration
	for range 10 {
		waits = append(waits, b.next(true, 300*time.Millisecond))
	}
	assert.Equal(t, []time.Duration{
		250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second,
	}, waits)
}

func TestFailedBackoff_StartsAgainAfterAHealthyTerm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failed bool
		lasted time.Duration
		want   time.Duration
	}{
		{"the function returned nil", false, time.Millisecond, 0},
		{"the term was lost or stopped", false, time.Hour, 0},
		{"it failed after running long", true, time.Minute, 0},
		{"it failed soon again", true, time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := failedBackoff{wait: 500 * time.Millisecond}
			assert.Equal(t, tc.want, b.next(tc.failed, tc.lasted))
		})
	}
}
