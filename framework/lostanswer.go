package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// What happened to a write whose answer was lost: the one rule of the
// client, for every write but the creates (CreateProtected finds its node
// by its protection id; a plain Create is documented as retried as it is).
//
// go-zookeeper reports a request cut off with its connection as connection
// loss whether or not the server applied it, and ZooKeeper has no request
// ids by which a retry could be told from the lost try. So after a lost
// answer the client sends the write again only where the second run cannot
// be mistaken for the first:
//
//   - A set or a delete is sent again. If the retry succeeds, the lost try
//     was not applied (the version it was conditional on is still there,
//     or, for a set with version -1, the same data is written again). If
//     the retry fails in a way the lost try's own success would explain
//     (a bad version, a missing node), the outcome is unknown unless a
//     read proves it (a set whose data is unique to it, UniqueData, finds
//     its data there): ErrOutcomeUnknown. A missing node is wrapped too
//     (errors.Is(err, zk.ErrNoNode)), as the node is gone either way; a bad
//     version is not, as it would read as "not applied".
//   - A transaction is not sent again unless it proves what happened: when
//     every create in it is a protected ephemeral (its name carries a
//     protection id, as the semaphore's leases do), the client looks for
//     them; found, the transaction ran and its results are rebuilt from
//     the listing (a set's Stat is then nil); not found, and the session
//     the lost run was sent in lived through the look, none of it ran (it
//     is atomic) and it is sent again. Otherwise ErrOutcomeUnknown: a
//     persistent node may have been deleted by another client before the
//     look (a queue's consumer), and an ephemeral one by its session's end.
//   - A write that gives up (retries exhausted, ctx ended, client closed)
//     after a lost answer, or while a try is still on its way, also ends
//     with ErrOutcomeUnknown, wrapping that cause.

// lostAnswers follows one write across its tries. A try abandoned when ctx
// ended runs on, so the fields are guarded.
type lostAnswers struct {
	mu      sync.Mutex
	lost    error // the error of the first try whose answer was lost
	pending int   // tries sent whose answer has not come
}

// begin counts a try as sent and returns the error of an earlier try whose
// answer was lost, or nil.
func (l *lostAnswers) begin() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending++
	return l.lost
}

// end records a try's answer.
func (l *lostAnswers) end(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending--
	if l.lost == nil && IsRetryable(err) {
		l.lost = err
	}
}

// uncertain reports whether a try may have been applied unseen.
func (l *lostAnswers) uncertain() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost != nil || l.pending > 0
}

// verdict decides what a try's failure means after an earlier try's answer
// was lost (lost is that try's error): the write's value if a read proves
// the lost try applied, the failure if it proves it was not, or an error
// wrapping ErrOutcomeUnknown. Its calls run on conn.
type verdict[T any] func(conn *zk.Conn, failure, lost error) (T, error)

// retryWrite is retry for a write, under the rule above: once a try's
// answer was lost, a later try's failure is judged by judge before the
// caller sees it, and a write that gives up then is of unknown outcome.
func retryWrite[T any](ctx context.Context, c *Client, op, path string, fn attempt[T], judge verdict[T]) (T, error) {
	var answers lostAnswers
	v, err := retry(ctx, c, op, path, func(conn *zk.Conn, s *Session) (T, error) {
		earlier := answers.begin()
		v, err := fn(conn, s)
		answers.end(err)
		if earlier != nil && err != nil && !IsRetryable(err) && !errors.Is(err, ErrSessionChanged) {
			return judge(conn, err, earlier)
		}
		return v, err
	})
	if err != nil && givenUp(ctx, err) && (answers.uncertain() || isAbandoned(err)) {
		var zero T
		return zero, outcomeUnknown(op, path, err)
	}
	return v, err
}

// outcomeUnknown is the error of the write op on path that ended, without
// a verdict of the server's, while a try of it may have been applied:
// ErrOutcomeUnknown, wrapping what ended it.
func outcomeUnknown(op, path string, err error) error {
	return opError(op, path, fmt.Errorf("%w: %w", ErrOutcomeUnknown, causeOf(err)))
}

// givenUp reports whether err ended a write without a verdict of the
// server's: the connection, the ctx or the client ended it.
func givenUp(ctx context.Context, err error) bool {
	return !errors.Is(err, ErrOutcomeUnknown) &&
		(IsRetryable(err) || ctx.Err() != nil || errors.Is(err, ErrClosed) || errors.Is(err, ErrRetriesExhausted))
}

// causeOf returns the error an OpError wraps, so as not to name the
// operation twice.
func causeOf(err error) error {
	var oe *OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}

// unknownAfter is the error of a write whose answer was lost (lost) and
// whose retry failed with failure, which its own success would explain.
// With also, the error wraps failure too.
func unknownAfter(lost, failure error, also bool) error {
	if also {
		return fmt.Errorf("%w: answer lost (%w), then %w", ErrOutcomeUnknown, lost, failure)
	}
	return fmt.Errorf("%w: answer lost (%w), then %v", ErrOutcomeUnknown, lost, failure)
}

// setVerdict judges a set's retry that met a bad version or no node after
// a lost answer: with unique data, finding that data proves the lost set
// applied; nothing else proves either way.
func setVerdict(serverPath string, data []byte, unique bool) verdict[*zk.Stat] {
	return func(conn *zk.Conn, failure, lost error) (*zk.Stat, error) {
		if !errors.Is(failure, zk.ErrBadVersion) && !isNoNode(failure) {
			return nil, failure
		}
		if unique {
			got, stat, err := conn.Get(serverPath)
			switch {
			case err == nil && bytes.Equal(got, data):
				return stat, nil
			case err != nil && !isNoNode(err):
				return nil, err // retried: the next try is judged again
			}
		}
		return nil, unknownAfter(lost, failure, isNoNode(failure))
	}
}

// deleteVerdict judges a delete's retry after a lost answer: a missing
// node may be the lost delete's own doing. For version -1 the error still
// wraps zk.ErrNoNode, since the node is gone either way; for a version it
// does not, as a caller reads that as "someone else took it".
func deleteVerdict(version int32) verdict[struct{}] {
	if version == -1 {
		return deleteAnyVerdict // a func, not a closure: no allocation
	}
	return func(_ *zk.Conn, failure, lost error) (struct{}, error) {
		return judgeDelete(version, failure, lost)
	}
}

// deleteAnyVerdict is deleteVerdict(-1).
func deleteAnyVerdict(_ *zk.Conn, failure, lost error) (struct{}, error) {
	return judgeDelete(-1, failure, lost)
}

// judgeDelete is the verdict of deleteVerdict(version).
func judgeDelete(version int32, failure, lost error) (struct{}, error) {
	if !isNoNode(failure) && !errors.Is(failure, zk.ErrBadVersion) {
		return struct{}{}, failure
	}
	return struct{}{}, unknownAfter(lost, failure, version == -1 && isNoNode(failure))
}

// WriteOption configures one Set.
type WriteOption func(*writeConfig)

type writeConfig struct{ unique bool }

// UniqueData says that no other write puts the same data in the node (it
// carries a stamp of its writer's, say): after a lost answer, finding the
// data there proves the set applied, and Set returns the node's stat
// instead of ErrOutcomeUnknown. Default: data may repeat, and proves
// nothing.
func UniqueData() WriteOption { return func(o *writeConfig) { o.unique = true } }
