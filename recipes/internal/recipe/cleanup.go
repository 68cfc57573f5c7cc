package recipe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// CleanupTimeout bounds the work that finishes what a caller started (see
// FinishContext), before what is left is handed to the client's background
// deletion.
const CleanupTimeout = 5 * time.Second

// FinishContext is the library's one rule for finishing work after the
// caller's context has ended: a release, a lease's return, the deletion of
// a waiter's node. The work keeps ctx's values (a bound session, an owner)
// but not its end, since a release deferred past a timeout must still free
// the lock; it is bounded by the client's retry policy and, so that no
// wait is endless, by CleanupTimeout. What it cannot finish in that time
// is handed to the client's background deletion.
func FinishContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Done() != nil { // else it cannot end: nothing to take away
		ctx = context.WithoutCancel(ctx)
	}
	return context.WithTimeout(ctx, CleanupTimeout)
}

// DeleteNode deletes a recipe's own node in the session that created it,
// under FinishContext(ctx). A node already gone is no error. If that
// session is lost, the node is gone with it: nothing is sent, and the error
// wraps framework.ErrSessionChanged. Any other failure hands the node to
// the client's background deletion, and is returned.
func DeleteNode(ctx context.Context, client *framework.Client, node framework.Node) error {
	ctx, cancel := FinishContext(ctx)
	defer cancel()
	return deleteNode(ctx, client, node)
}

// deleteNode is DeleteNode within ctx, which bounds the wait.
func deleteNode(ctx context.Context, client *framework.Client, node framework.Node) error {
	if node.Session.IsLost() {
		return fmt.Errorf("%w: %s went with its session", framework.ErrSessionChanged, node.Path)
	}
	err := client.Delete(framework.BindSession(ctx, node.Session), node.Path, -1)
	switch {
	case err == nil, IsNoNode(err):
		return nil
	case errors.Is(err, framework.ErrSessionChanged):
		return err
	case node.Session.IsLost():
		return fmt.Errorf("%w: %w", framework.ErrSessionChanged, err)
	}
	_, _ = client.DeleteInBackground(node.Path)
	return err
}

// DiscardWait bounds the wait for a delete that DiscardNode makes after
// the caller's context has ended.
const DiscardWait = time.Second

// DiscardNode deletes a node that a call made and no longer needs (a
// waiter's node of an acquire that failed), as DeleteNode does, so that
// the caller finds it gone when the call returns. Once ctx has ended, the
// caller is past its deadline: the delete's answer is then waited for at
// most DiscardWait, not CleanupTimeout, and a node not deleted by then is
// left to the client's background deletion, so that a server slow to
// answer adds at most a second to the caller's deadline.
func DiscardNode(ctx context.Context, client *framework.Client, node framework.Node) {
	if ctx.Err() == nil {
		_ = DeleteNode(ctx, client, node)
		return
	}
	bounded, cancel := context.WithTimeout(context.WithoutCancel(ctx), DiscardWait)
	defer cancel()
	_ = deleteNode(bounded, client, node)
}

// IsNoNode reports whether err says that a node does not exist.
func IsNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }

// ClosedError is err, wrapping zkrecipes.ErrClosed if the client is closed
// and err does not already: a Close ends the session and the watches a
// wait stood on, which would otherwise read as a lost session or a
// deleted node.
func ClosedError(client *framework.Client, err error) error {
	if err == nil || !client.IsClosed() || errors.Is(err, zkrecipes.ErrClosed) {
		return err
	}
	return fmt.Errorf("%w: %w", zkrecipes.ErrClosed, err)
}

// WaitError turns an error of a wait on a recipe's own nodes into what the
// caller sees: a lost session is zkrecipes.ErrLost, so that the waiter
// fails fast, and a missing node wraps missing, the recipe's own sentinel
// for "queue again".
func WaitError(err error, session *framework.Session, missing error) error {
	switch {
	case errors.Is(err, framework.ErrSessionChanged), errors.Is(err, zk.ErrSessionExpired), session.IsLost():
		return Errorf("%w: session lost while waiting: %w", zkrecipes.ErrLost, err)
	case IsNoNode(err) && !errors.Is(err, missing):
		return fmt.Errorf("%w: %w", missing, err)
	}
	return err
}
