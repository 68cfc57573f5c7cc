package framework

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// transaction is one Multi call under the rule for lost answers (see
// lostanswer.go). Its loop makes its server calls synchronously, so that
// when it returns no run of its own is still in flight.
type transaction struct {
	c       *Client
	ops     []Op
	reqs    []any
	creates []protectedOp // its protected creates
	writes  bool          // it holds a write: running it twice is not harmless

	// unprotected: it holds a create without a protection id, which no
	// look can find.
	unprotected bool

	// persistent: it holds a protected create of a node that outlives its
	// session, which anyone may delete (a consumer of a queue): its
	// absence proves nothing.
	persistent bool

	runs atomic.Int32 // runs sent; read while a run may be on its way
	// gate says whether a run has been handed to go-zookeeper (gateHanded)
	// or the caller, gone before any was, has withheld them all
	// (gateWithheld): the one moment that tells "nothing sent" from "it
	// may still be applied".
	gate atomic.Int32
	// lost is the error of the first run whose answer was lost, nil until
	// then, and lostIn the session that run was sent in. The run loop owns
	// them; others read lost once the loop has ended.
	lost   error
	lostIn int64
}

// protectedOp is a protected create of a transaction.
type protectedOp struct {
	index     int
	parent    string // server path
	id        string
	ephemeral bool
}

func newTransaction(c *Client, ops []Op, reqs []any) *transaction {
	t := &transaction{c: c, ops: ops, reqs: reqs}
	for i, op := range ops {
		if op.kind == opCheck {
			continue
		}
		t.writes = true
		if op.kind != opCreate {
			continue
		}
		sp := reqs[i].(*zk.CreateRequest).Path
		parent, name := zkpath.Split(sp)
		id, ok := zkpath.ProtectionID(name)
		if !ok {
			t.unprotected = true
			continue
		}
		t.creates = append(t.creates, protectedOp{index: i, parent: parent, id: id, ephemeral: op.mode.IsEphemeral()})
		if !op.mode.IsEphemeral() {
			t.persistent = true
		}
	}
	return t
}

const (
	gateOpen int32 = iota
	gateHanded
	gateWithheld
)

// errWithheld ends a run the caller withheld: it has already returned.
var errWithheld = errors.New("framework: transaction withheld")

// hand reports whether a run may be sent: none has been withheld.
func (t *transaction) hand() bool {
	return t.gate.CompareAndSwap(gateOpen, gateHanded) || t.gate.Load() == gateHanded
}

// withhold keeps every run from being sent, and reports whether none was.
func (t *transaction) withhold() bool {
	return t.gate.CompareAndSwap(gateOpen, gateWithheld) || t.gate.Load() == gateWithheld
}

// provable reports whether the client can learn whether a run whose
// answer was lost was applied: it writes nothing, or its creates are all
// protected ephemerals. Only those prove what happened by their absence,
// and only while the session of the lost run lives (see attempt): nothing
// but that session's end deletes them, by the recipes' rules, where a
// persistent node may be taken by a consumer before the client looks.
func (t *transaction) provable() bool {
	return !t.writes || (len(t.creates) > 0 && !t.unprotected && !t.persistent)
}

// run is the retry loop of the transaction.
func (t *transaction) run(ctx context.Context) ([]zk.MultiResponse, error) {
	return retrySteps(ctx, t.c, "multi", "", func() ([]zk.MultiResponse, error) {
		conn, session, err := t.c.boundConnection(ctx)
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err // the caller has left: send nothing more
		}
		try := t.attempt
		if boundSession(ctx) != nil {
			try = inBoundSession(t.c, t.firstPath(), try, t.made)
		}
		return onConn(t.c, func() ([]zk.MultiResponse, error) { return try(conn, session) })
	})
}

// firstPath returns the server path of the transaction's first op, which
// the connection wrapper reads to tell the transaction's request.
func (t *transaction) firstPath() string {
	switch r := t.reqs[0].(type) {
	case *zk.CreateRequest:
		return r.Path
	case *zk.DeleteRequest:
		return r.Path
	case *zk.SetDataRequest:
		return r.Path
	case *zk.CheckVersionRequest:
		return r.Path
	}
	return ""
}

// attempt looks for a run whose answer was lost, and runs the transaction
// unless it finds one.
func (t *transaction) attempt(conn *zk.Conn, _ *Session) ([]zk.MultiResponse, error) {
	if t.lost != nil {
		before := conn.SessionID()
		if resps, found, err := t.find(conn); err != nil || found {
			return resps, err
		}
		// Absent nodes prove that the lost run did not apply only if the
		// session it ran in lived through the look: when it ended, its
		// ephemerals went with it.
		if before != t.lostIn || conn.SessionID() != t.lostIn {
			return nil, fmt.Errorf("%w: answer lost (%w), and the session it ran in ended before a look could tell", ErrOutcomeUnknown, t.lost)
		}
	}
	if !t.hand() {
		return nil, errWithheld
	}
	t.runs.Add(1)
	session := conn.SessionID()
	resps, err := conn.Multi(t.reqs...)
	if IsRetryable(err) {
		if t.lost == nil {
			t.lost, t.lostIn = err, session
		}
		if !t.provable() {
			return nil, fmt.Errorf("%w: answer lost (%w)", ErrOutcomeUnknown, err)
		}
	}
	return resps, err
}

// find looks for the protected creates of a run whose answer was lost.
// All there: it ran, and their paths make its responses. None: it did not
// run. Some: it ran and someone has deleted the others since; what is
// left is deleted, and the error wraps zk.ErrNoNode. An ephemeral node of
// another session than conn's says it ran in an older session: its nodes
// are deleted, and the error is ErrSessionChanged.
func (t *transaction) find(conn *zk.Conn) ([]zk.MultiResponse, bool, error) {
	listings := make(map[string][]string)
	resps := make([]zk.MultiResponse, len(t.ops))
	var found []protectedOp
	for _, p := range t.creates {
		children, ok := listings[p.parent]
		if !ok {
			var err error
			if children, _, err = conn.Children(p.parent); err != nil && !isNoNode(err) {
				return nil, false, err
			}
			listings[p.parent] = children
		}
		for _, name := range children {
			if zkpath.HasProtectionID(name, p.id) {
				resps[p.index].String = zkpath.Join(p.parent, name)
				found = append(found, p)
				break
			}
		}
	}
	switch {
	case len(found) == 0:
		return nil, false, nil
	case len(found) < len(t.creates):
		t.deleteFound(resps, found, 0, false)
		return nil, true, fmt.Errorf("%w: the transaction ran, and some of its nodes are gone", zk.ErrNoNode)
	}
	return t.checkOwner(conn, resps, found)
}

// checkOwner takes the found nodes if their ephemeral owner is conn's
// session, and deletes them if it is another.
func (t *transaction) checkOwner(conn *zk.Conn, resps []zk.MultiResponse, found []protectedOp) ([]zk.MultiResponse, bool, error) {
	for _, p := range found {
		if !p.ephemeral {
			continue
		}
		ok, stat, err := conn.Exists(resps[p.index].String)
		switch {
		case err != nil:
			return nil, false, err
		case !ok:
			t.deleteFound(resps, found, 0, false)
			return nil, true, fmt.Errorf("%w: the transaction ran, and some of its nodes are gone", zk.ErrNoNode)
		case stat.EphemeralOwner != conn.SessionID():
			t.deleteFound(resps, found, stat.EphemeralOwner, true)
			return nil, true, ErrSessionChanged
		}
		break // one transaction, one session
	}
	return resps, true, nil
}

// deleteFound deletes the found nodes in the background: the ephemeral
// ones only while owner (when known) still owns them.
func (t *transaction) deleteFound(resps []zk.MultiResponse, found []protectedOp, owner int64, known bool) {
	for _, p := range found {
		path := resps[p.index].String
		switch {
		case p.ephemeral && known:
			t.c.deleteOwnedInBackground(path, owner)
		default:
			t.c.deleteInBackground(path)
		}
	}
}

// made names the nodes a successful run created.
func (t *transaction) made(resps []zk.MultiResponse) []madeNode {
	var nodes []madeNode
	for i, r := range resps {
		if t.ops[i].kind == opCreate && r.Error == nil && r.String != "" {
			nodes = append(nodes, madeNode{path: r.String, ephemeral: t.ops[i].mode.IsEphemeral()})
		}
	}
	return nodes
}

// ids returns the protection ids of the transaction's creates.
func (t *transaction) ids() map[string][]string {
	byParent := make(map[string][]string)
	for _, p := range t.creates {
		byParent[p.parent] = append(byParent[p.parent], p.id)
	}
	return byParent
}

// sweep cleans up after a run whose answer was lost, which may reach the
// server late: after success, later looks delete twins of the nodes kept;
// after failure, every node carrying one of the ids is deleted, once
// finished is closed (nil: at once).
func (t *transaction) sweep(resps []zk.MultiResponse, err error, finished <-chan struct{}) {
	keep := make(map[string]bool)
	if err == nil {
		for _, n := range t.made(resps) {
			keep[zkpath.Base(n.path)] = true
		}
	}
	for parent, ids := range t.ids() {
		if err == nil {
			t.c.lookLater(parent, findAndDeleteLook(parent, ids, keep))
			continue
		}
		t.c.findAndDeleteInBackground(parent, ids, nil, finished)
	}
}

// outcome turns the error that ended the transaction (its run loop over)
// into ErrOutcomeUnknown when a run's answer was lost and no verdict of
// the server's came after.
func (t *transaction) outcome(ctx context.Context, err error) error {
	if err == nil || t.lost == nil || !t.writes || !givenUp(ctx, err) {
		return err
	}
	return outcomeUnknown("multi", "", err)
}
