package framework

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Which transactions can prove, after a lost answer, whether they ran:
// only protected ephemerals prove by their absence, since anyone may
// delete a persistent node before the client looks (issue 27, row 3).
func TestTransaction_ProvableOnlyWithProtectedEphemeralsOrNoWrites(t *testing.T) {
	protected := zkpath.Join("/d", zkpath.ProtectedName(zkpath.NewProtectionID(), "lease-"))
	tests := []struct {
		name string
		ops  []Op
		want bool
	}{
		{"checks only", []Op{CheckOp("/a", 0), CheckOp("/b", 1)}, true},
		{"a protected create", []Op{CreateOp(protected, nil, EphemeralSequential)}, true},
		{"protected create and a set", []Op{CreateOp(protected, nil, EphemeralSequential), SetOp("/d", nil, -1)}, true},
		{"a plain create", []Op{CreateOp("/d/n-", nil, PersistentSequential)}, false},
		{"a protected persistent create", []Op{CreateOp(protected, nil, PersistentSequential)}, false},
		{"a protected ephemeral and a protected persistent create", []Op{CreateOp(protected, nil, EphemeralSequential), CreateOp(protected, nil, Persistent)}, false},
		{"a plain and a protected create", []Op{CreateOp(protected, nil, Ephemeral), CreateOp("/d/n", nil, Persistent)}, false},
		{"check and set", []Op{CheckOp("/a", 0), SetOp("/a", nil, 0)}, false},
		{"deletes", []Op{DeleteOp("/a", -1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs := make([]any, len(tt.ops))
			for i, op := range tt.ops {
				if op.kind == opCreate {
					reqs[i] = &zk.CreateRequest{Path: op.path}
				}
			}
			assert.Equal(t, tt.want, newTransaction(nil, tt.ops, reqs).provable())
		})
	}
}

// A transaction's error names no path, and prints none: no empty path
// between the words.
func TestOpError_WithoutAPathPrintsNone(t *testing.T) {
	err := &OpError{Op: "multi", Err: zk.ErrBadVersion}
	assert.Equal(t, "framework: multi: "+zk.ErrBadVersion.Error(), err.Error())
	err = &OpError{Op: "set", Path: "/a", Err: zk.ErrBadVersion}
	assert.Equal(t, "framework: set /a: "+zk.ErrBadVersion.Error(), err.Error())
}
