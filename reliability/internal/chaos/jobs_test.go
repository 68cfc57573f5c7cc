package chaos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/framework"
)

func TestJobs_EachOutcomeAllowsItsNumberOfJobs(t *testing.T) {
	unknown := framework.ErrOutcomeUnknown
	failed := errors.New("guard failed")
	tests := []struct {
		name  string
		err   error
		nodes []string
		ok    bool
	}{
		{"applied once", nil, []string{"a"}, true},
		{"applied, never taken", nil, nil, false},
		{"applied twice: sent again after a lost answer", nil, []string{"a", "b"}, false},
		{"taken twice from one node", nil, []string{"a", "a"}, true},
		{"unknown, none", unknown, nil, true},
		{"unknown, one", unknown, []string{"a"}, true},
		{"unknown, two", unknown, []string{"a", "b"}, false},
		{"failed, none", failed, nil, true},
		{"failed after it ran", failed, []string{"a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &Jobs{Clock: NewClock()}
			q.record("p/1", tt.err)
			for _, n := range tt.nodes {
				q.took("p/1", n)
			}
			assert.Equal(t, tt.ok, len(q.Check()) == 0, "%v", q.Check())
		})
	}
}

func TestJobs_AJobNoEnqueueMadeIsAViolation(t *testing.T) {
	q := &Jobs{Clock: NewClock()}
	q.took("p/1", "a")
	assert.Len(t, q.Check(), 1)
}
