package recipe

import "github.com/zkrecipes/zkrecipes/framework"

// endedVersion is a version no node has (a node's versions count up from
// 0), so a check on it fails at the server whatever the node's state.
const endedVersion int32 = -2

// Guard returns the guard op of a hold on the node at path: a check that
// the node exists at version (-1: at any version). A hold that has ended
// already (ended, its Err, is not nil) gets a check that no node passes,
// so that a transaction it guards fails with the loss even while the node
// is still there: a released hold whose delete continues in the
// background, or a hold given up at a suspended connection, whose node is
// deleted once connected.
func Guard(path string, version int32, ended error) framework.Op {
	if ended != nil {
		version = endedVersion
	}
	return framework.GuardOp(path, version)
}
