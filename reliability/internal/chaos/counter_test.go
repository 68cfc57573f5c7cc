package chaos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

func TestCounter_TheValueLiesBetweenTheBelievedAndTheUnknown(t *testing.T) {
	succeeded := atomicvalue.Result[int64]{Succeeded: true}
	unknown := atomicvalue.ErrOutcomeUnknown
	tests := []struct {
		name                      string
		believed, unknown, failed int
		beaten                    int
		final                     int64
		violation                 bool
	}{
		{"exactly the believed", 10, 0, 0, 0, 10, false},
		{"one applied twice", 10, 0, 0, 0, 11, true},
		{"one believed and never applied", 10, 0, 0, 0, 9, true},
		{"unknowns that applied", 10, 2, 0, 0, 12, false},
		{"unknowns that did not", 10, 2, 0, 0, 10, false},
		{"more than the unknowns explain", 10, 2, 0, 0, 13, true},
		{"a failed one that ran", 10, 0, 3, 0, 11, true},
		{"a beaten one that ran", 10, 0, 0, 3, 11, true},
		{"failed and beaten ones that did not run", 10, 0, 3, 3, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Counter
			for range tt.believed {
				c.note(succeeded, nil)
			}
			for range tt.unknown {
				c.note(atomicvalue.Result[int64]{}, unknown)
			}
			for range tt.failed {
				c.note(atomicvalue.Result[int64]{}, errors.New("connection lost"))
			}
			for range tt.beaten {
				c.note(atomicvalue.Result[int64]{}, nil)
			}
			v := c.Check(at(0), tt.final)
			assert.Equal(t, tt.violation, len(v) == 1, "%v", v)
		})
	}
}

func TestCounter_CountsEachOutcomeAndThePromoted(t *testing.T) {
	var c Counter
	c.note(atomicvalue.Result[int64]{Succeeded: true, Stats: atomicvalue.Stats{PromotedTries: 1}}, nil)
	c.note(atomicvalue.Result[int64]{}, atomicvalue.ErrOutcomeUnknown)
	c.note(atomicvalue.Result[int64]{}, nil)
	assert.Equal(t, map[string]int{"believed": 1, "unknown": 1, "failed": 0, "beaten": 1, "promoted": 1}, c.Counts())
}
