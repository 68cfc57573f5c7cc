package framework

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes"
)

func TestFailedOp(t *testing.T) {
	failed := opError("multi", "", zk.ErrNoNode)
	inconsistent := errors.New("unknown error: -2")
	guard, check, set := GuardOp("/held", -1), CheckOp("/other", -1), SetOp("/config", nil, -1)
	cases := []struct {
		name    string
		ops     []Op
		results []OpResult
		err     error
		lost    bool
	}{
		{"success", []Op{guard, set}, []OpResult{{}, {}}, nil, false},
		{"the guard fails", []Op{guard, set}, []OpResult{{Err: zk.ErrNoNode}, {Err: inconsistent}}, failed, true},
		{"a guard after a write fails", []Op{set, guard}, []OpResult{{}, {Err: zk.ErrNoNode}}, failed, true},
		{"a check fails", []Op{check, set}, []OpResult{{Err: zk.ErrNoNode}, {Err: inconsistent}}, failed, false},
		{"a check fails before the guard", []Op{check, guard}, []OpResult{{Err: zk.ErrNoNode}, {Err: inconsistent}}, failed, false},
		{"a set fails after the guard", []Op{guard, set}, []OpResult{{}, {Err: zk.ErrBadVersion}}, failed, false},
		{"no results", []Op{guard, set}, nil, failed, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := failedOp(tc.ops, tc.results, tc.err)
			if tc.err == nil {
				assert.NoError(t, err)
				return
			}
			serverErr := error(zk.ErrNoNode) // of the transaction, when no result says
			for _, r := range tc.results {
				if r.Err != nil {
					serverErr = r.Err
					break
				}
			}
			assert.ErrorIs(t, err, serverErr, "the server's error is kept")
			assert.Equal(t, tc.lost, errors.Is(err, zkrecipes.ErrLost))
			if tc.lost {
				assert.Contains(t, err.Error(), "/held")
			}
			var op *MultiOpError
			if assert.Equal(t, tc.results != nil, errors.As(err, &op), "the failing op is named") && op != nil {
				assert.Equal(t, tc.ops[op.Index].path, op.Path)
				assert.NotNil(t, tc.results[op.Index].Err)
			}
		})
	}
}
