package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTally_TheCountRisesByWhatWasBelieved(t *testing.T) {
	for _, tc := range []struct {
		name              string
		believed, unknown int
		seed, final       int32
		violation         bool
	}{
		{"exactly", 10, 0, 5, 15, false},
		{"an increment applied twice", 10, 0, 5, 16, true},
		{"an increment believed and never applied", 10, 0, 5, 14, true},
		{"unknown outcomes that applied", 10, 2, 0, 12, false},
		{"unknown outcomes that did not", 10, 2, 0, 10, false},
		{"more than the unknown outcomes can explain", 10, 2, 0, 13, true},
		{"nothing at all", 0, 0, 3, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tally Tally
			for range tc.believed {
				tally.Believed()
			}
			for range tc.unknown {
				tally.Unknown()
			}
			v := tally.Check("count", at(0), tc.seed, tc.final)
			assert.Equal(t, tc.violation, len(v) == 1, "%v", v)
		})
	}
}
