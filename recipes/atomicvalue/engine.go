package atomicvalue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// engine is Curator's DistributedAtomicValue: the value as the node's
// bytes, which Long, Int and Bytes read and write through. It is safe for
// concurrent use: it keeps no state between calls.
type engine struct {
	client *framework.Client
	path   string
	opts   options
	lock   *mutex.Mutex // the promotion's lock; nil without one
}

// newEngine checks the arguments and options of a value on path and does
// no I/O.
func newEngine(client *framework.Client, path string, opts []Option) (*engine, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	if o.retry == nil {
		o.retry = defaultRetry()
	}
	e := &engine{client: client, path: path, opts: o}
	if o.promoted == nil {
		return e, nil
	}
	if err := recipe.CheckPath(client, o.promoted.Path, ErrInvalidArgument); err != nil {
		return nil, fmt.Errorf("lock path: %w", err)
	}
	var lockOpts []mutex.Option
	if o.logger != nil {
		lockOpts = append(lockOpts, mutex.WithLogger(o.logger))
	}
	if e.lock, err = mutex.New(client, o.promoted.Path, lockOpts...); err != nil {
		return nil, err
	}
	return e, nil
}

// log returns the value's logger: WithLogger's, or the client's.
func (e *engine) log() *slog.Logger {
	return recipe.Logger(e.opts.logger, e.client, "atomicvalue")
}

// read returns the node's data and version; missing, it reports false.
func (e *engine) read(ctx context.Context, op string) (data []byte, version int32, exists bool, err error) {
	data, stat, err := e.client.Get(ctx, e.path)
	switch {
	case recipe.IsNoNode(err):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, e.errorf(op, err)
	}
	return data, stat.Version, true, nil
}

// get is Curator's get: the current bytes (nil for a missing node), as
// both values of a result that succeeded.
func (e *engine) get(ctx context.Context) (Result[[]byte], error) {
	data, _, _, err := e.read(ctx, "get")
	if err != nil {
		return Result[[]byte]{}, err
	}
	return Result[[]byte]{Succeeded: true, PreValue: data, PostValue: data}, nil
}

// forceSet writes data whatever the node holds, creating it (with
// container parents) if it is missing. A set whose answer was lost is sent
// again by the client: writing the same bytes twice is writing them once.
func (e *engine) forceSet(ctx context.Context, data []byte) error {
	for {
		_, err := e.client.Set(ctx, e.path, data, -1)
		if !recipe.IsNoNode(err) || errors.Is(err, ErrOutcomeUnknown) {
			return e.wrap("force-set", err)
		}
		_, err = e.client.Create(ctx, e.path, data, framework.Persistent, framework.WithParents())
		if !errors.Is(err, zk.ErrNodeExists) {
			return e.wrap("force-set", err)
		}
		// Created meanwhile by someone else (or by our own create whose
		// answer was lost): set it over that.
	}
}

// compareAndSet writes data if the node exists and match accepts its
// bytes, with a write conditional on the version read: one try, counted in
// no stats, as Curator's.
func (e *engine) compareAndSet(ctx context.Context, match func(current []byte) (bool, error), data []byte) (Result[[]byte], error) {
	var r Result[[]byte]
	current, version, exists, err := e.read(ctx, "compare-and-set")
	if err != nil || !exists {
		return r, err
	}
	r.PreValue = current
	ok, err := match(current)
	if err != nil || !ok {
		return r, e.wrap("compare-and-set", err)
	}
	applied, err := e.setVersion(ctx, "compare-and-set", data, version)
	if err != nil || !applied {
		return r, err
	}
	r.Succeeded, r.PostValue = true, data
	return r, nil
}

// initialize creates the node with data if it does not exist, and reports
// whether it did.
func (e *engine) initialize(ctx context.Context, data []byte) (bool, error) {
	created, err := e.create(ctx, "initialize", data)
	return created, err
}

// setVersion writes data if the node is still at version, and reports
// false when another write came first or the node is gone. A write whose
// answer was lost is never reported as not applied: the client sends it
// again, and a retry that meets what its own success would explain is
// ErrOutcomeUnknown (framework.Client.Set).
func (e *engine) setVersion(ctx context.Context, op string, data []byte, version int32) (bool, error) {
	_, err := e.client.Set(ctx, e.path, data, version)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrOutcomeUnknown):
		return false, e.errorf(op, err)
	case errors.Is(err, zk.ErrBadVersion), recipe.IsNoNode(err):
		return false, nil
	}
	return false, e.errorf(op, err)
}

// create makes the node with data, with container parents, and reports
// false when it exists already. It is a transaction of one create, not a
// plain create: after a lost answer a create is sent again and meets its
// own node as someone else's, while a transaction whose answer was lost
// says ErrOutcomeUnknown (framework.Client.Multi), so that no update is
// reported failed after it ran.
func (e *engine) create(ctx context.Context, op string, data []byte) (bool, error) {
	// A parent made here is a container that the server may delete again
	// once it has had children and has none: a few rounds, not one.
	for round := 0; ; round++ {
		_, err := e.client.Multi(ctx, framework.CreateOp(e.path, data, framework.Persistent))
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, ErrOutcomeUnknown):
			return false, e.errorf(op, err)
		case errors.Is(err, zk.ErrNodeExists):
			return false, nil
		case !recipe.IsNoNode(err) || round == maxParentRounds:
			return false, e.errorf(op, err)
		}
		if err := e.client.EnsurePath(ctx, zkpath.Parent(e.path)); err != nil {
			return false, e.errorf(op, err)
		}
	}
}

// maxParentRounds bounds the parents a create makes again.
const maxParentRounds = 3

// errorf wraps err, naming the recipe, the operation and the path.
func (e *engine) errorf(op string, err error) error {
	return fmt.Errorf("atomicvalue: %s %s: %w", op, e.path, err)
}

// wrap is errorf for an err that may be nil.
func (e *engine) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return e.errorf(op, err)
}
