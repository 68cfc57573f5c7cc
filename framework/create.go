package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// CreateMode is the kind of node a create makes.
type CreateMode int

// The create modes. The TTL modes need a server started with
// zookeeper.extendedTypesEnabled=true and the WithTTL option.
const (
	Persistent CreateMode = iota
	Ephemeral
	PersistentSequential
	EphemeralSequential
	Container
	PersistentTTL
	PersistentSequentialTTL
)

var createModeNames = [...]string{"persistent", "ephemeral", "persistent-sequential", "ephemeral-sequential", "container", "persistent-ttl", "persistent-sequential-ttl"}

// String returns the mode's name.
func (m CreateMode) String() string {
	if m.valid() {
		return createModeNames[m]
	}
	return fmt.Sprintf("CreateMode(%d)", int(m))
}

func (m CreateMode) valid() bool { return m >= Persistent && m <= PersistentSequentialTTL }

// IsSequential reports whether the server appends a sequence number.
func (m CreateMode) IsSequential() bool {
	return m == PersistentSequential || m == EphemeralSequential || m == PersistentSequentialTTL
}

// IsEphemeral reports whether the node dies with its session.
func (m CreateMode) IsEphemeral() bool { return m == Ephemeral || m == EphemeralSequential }

func (m CreateMode) isTTL() bool { return m == PersistentTTL || m == PersistentSequentialTTL }

func (m CreateMode) flags() int32 {
	switch m {
	case Ephemeral:
		return zk.FlagEphemeral
	case PersistentSequential:
		return zk.FlagSequence
	case EphemeralSequential:
		return zk.FlagEphemeralSequential
	case Container:
		return zk.FlagContainer
	case PersistentTTL:
		return zk.FlagTTL
	case PersistentSequentialTTL:
		return zk.FlagPersistentSequentialWithTTL
	}
	return zk.FlagPersistent
}

// CreateOption configures one create.
type CreateOption func(*createConfig)

type createConfig struct {
	parents bool
	ttl     time.Duration
	acl     []zk.ACL
}

// WithParents creates missing parents as container nodes, which the server
// deletes once their last child is gone. A parent that the server reaps
// between its create (or the answer that it exists) and its child's is
// made again, a few times. Default: a missing parent fails the create with
// zk.ErrNoNode.
func WithParents() CreateOption { return func(o *createConfig) { o.parents = true } }

// WithTTL sets the time to live of a TTL-mode node: the server may delete
// it once it has had no children and no change for that long. Required by
// the TTL modes, refused by the others.
func WithTTL(ttl time.Duration) CreateOption { return func(o *createConfig) { o.ttl = ttl } }

// WithACL sets the node's ACL instead of the ACL provider's. Parents
// created on the way keep the provider's. Default: the provider's.
func WithACL(acl []zk.ACL) CreateOption { return func(o *createConfig) { o.acl = acl } }

// createRequest is a validated create, in server paths.
type createRequest struct {
	path string // server path; for sequential modes, the prefix
	data []byte
	mode CreateMode
	createConfig
}

// newCreateRequest validates a create before anything is sent. A non-empty
// protectionID makes it a protected create: the node's name carries the id
// (see CreateProtected), and the ACL provider is asked for that path, the
// path of the node created, as Curator asks.
func (c *Client) newCreateRequest(path string, data []byte, mode CreateMode, opts []CreateOption, protectionID string) (createRequest, error) {
	r := createRequest{data: data, mode: mode}
	for _, o := range opts {
		if o == nil {
			return r, fmt.Errorf("%w: nil create option", ErrInvalidOption)
		}
		o(&r.createConfig)
	}
	validate := zkpath.Validate
	if mode.IsSequential() {
		validate = zkpath.ValidateSequential
	}
	switch {
	case !mode.valid():
		return r, fmt.Errorf("%w: create mode %v", ErrInvalidOption, mode)
	case mode.isTTL() && r.ttl <= 0:
		return r, fmt.Errorf("%w: mode %v needs a positive TTL", ErrInvalidOption, mode)
	case !mode.isTTL() && r.ttl != 0:
		return r, fmt.Errorf("%w: a TTL needs a TTL mode, not %v", ErrInvalidOption, mode)
	case path == "/":
		return r, fmt.Errorf("%w: cannot create the root", ErrInvalidPath)
	}
	if err := validate(path); err != nil {
		return r, err
	}
	if err := checkSize(path, data); err != nil {
		return r, err
	}
	r.path = c.withNamespace(path)
	if protectionID != "" {
		parent, name := zkpath.Split(r.path)
		if parent == "/" {
			parent = ""
		}
		// zkpath.Join(parent, zkpath.ProtectedName(protectionID, name)),
		// as one string, not two.
		r.path = parent + "/" + zkpath.ProtectedPrefix + protectionID + "-" + name
	}
	if r.acl == nil {
		r.acl = c.cfg.acl.ACL(r.path)
	}
	return r, nil
}

// Create creates a node and returns its path (relative to the namespace;
// with the sequence number for sequential modes). A sequential path may
// end in "/", leaving the name to the sequence number. A create whose
// answer was lost is retried as it is: it may fail with zk.ErrNodeExists,
// or, in a sequential mode, leave a duplicate. CreateProtected does not.
// A create that ctx ended while it was on its way fails with
// ErrOutcomeUnknown, wrapping the error of ctx: it may still be applied.
// With a ctx bound to a session (BindSession), a create that ran in
// another session fails with ErrSessionChanged, and its node is deleted,
// even when ctx ended before it answered.
func (c *Client) Create(ctx context.Context, path string, data []byte, mode CreateMode, opts ...CreateOption) (string, error) {
	r, err := c.newCreateRequest(path, data, mode, opts, "")
	if err != nil {
		return "", opError("create", path, err)
	}
	created, err := retryMaking(ctx, c, "create", path, func(conn *zk.Conn, _ *Session) (string, error) {
		return c.createOnce(conn, r, r.path)
	}, func(created string) []madeNode {
		return []madeNode{{path: created, ephemeral: r.mode.IsEphemeral()}}
	})
	if isAbandoned(err) {
		return "", outcomeUnknown("create", path, err)
	}
	if err != nil {
		return "", err
	}
	return c.clientPath(created), nil
}

// createOnce sends one create of path, and when the parent is missing and
// WithParents was given, creates the parents and the node once more. A
// parent may vanish again between its create and the node's: a container
// found there but empty after it had children (someone else made it) is
// the server's to reap at any moment, and so is an ancestor that was
// found there. Then it looks again, a bounded number of times.
func (c *Client) createOnce(conn *zk.Conn, r createRequest, path string) (string, error) {
	created, err := c.send(conn, r, path)
	for try := 0; r.parents && isNoNode(err) && try < parentTries; try++ {
		if err = c.createParents(conn, zkpath.Parent(path)); err == nil {
			created, err = c.send(conn, r, path)
		}
	}
	return created, err
}

// parentTries bounds the tries to make a node's missing parents and the
// node, in case something keeps deleting them.
const parentTries = 5

func (c *Client) send(conn *zk.Conn, r createRequest, path string) (string, error) {
	switch {
	case r.mode == Container:
		return conn.CreateContainer(path, r.data, zk.FlagContainer, r.acl)
	case r.mode.isTTL():
		return conn.CreateTTL(path, r.data, r.mode.flags(), r.acl, r.ttl)
	}
	return conn.Create(path, r.data, r.mode.flags(), r.acl)
}

// createParents creates path and its missing ancestors as containers,
// from the bottom up, so that no permission is needed on ancestors that
// already exist.
func (c *Client) createParents(conn *zk.Conn, path string) error {
	if path == "/" || path == "" {
		return nil
	}
	_, err := conn.CreateContainer(path, nil, zk.FlagContainer, c.cfg.acl.ACL(path))
	if isNoNode(err) {
		if err = c.createParents(conn, zkpath.Parent(path)); err == nil {
			_, err = conn.CreateContainer(path, nil, zk.FlagContainer, c.cfg.acl.ACL(path))
		}
	}
	switch {
	case errors.Is(err, zk.ErrNodeExists):
		return nil
	case errors.Is(err, zk.ErrNoAuth):
		// The server checks the right to create before existence: a
		// parent made meanwhile by someone else is there all the same.
		if ok, _, exErr := conn.Exists(path); exErr == nil && ok {
			return nil
		}
	}
	return err
}

// EnsurePath creates path and its missing ancestors as container nodes.
// It asks first whether path exists, as Curator's mkdirs does, so a path
// that exists needs only the right to read it, not the right to create in
// its parent; then it creates what is missing from the bottom up. When ctx
// ends while it asks, it creates nothing: a container that never has a
// child is never reaped.
func (c *Client) EnsurePath(ctx context.Context, path string) error {
	_, err := do(ctx, c, "ensure", path, func(conn *zk.Conn, sp string) (struct{}, error) {
		if ok, _, err := conn.Exists(sp); err != nil || ok {
			return struct{}{}, err
		}
		if err := ctx.Err(); err != nil {
			return struct{}{}, err // the caller has left, with nothing made
		}
		err := c.createParents(conn, sp)
		// An ancestor found there may be reaped before its child's create.
		for try := 1; isNoNode(err) && try < parentTries; try++ {
			err = c.createParents(conn, sp)
		}
		return struct{}{}, err
	})
	return err
}
