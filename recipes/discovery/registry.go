package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

// Discovery is a registry of services under a base path, as
// curator-x-discovery's ServiceDiscovery keeps it: the instances of a
// service at <base>/<name>/<id>, each node's data an Instance in
// Curator's JSON. Go and Java processes register in it and find each
// other. Make it with New.
type Discovery[T any] struct {
	client *framework.Client
	base   string
	codec  *Codec[T]
}

// New returns the registry under basePath, its instances read and
// written with a Codec made of opts (a provider's option is
// ErrInvalidArgument). It validates and does no I/O.
func New[T any](client *framework.Client, basePath string, opts ...Option) (*Discovery[T], error) {
	if client == nil {
		return nil, fmt.Errorf("discovery: %w: nil client", ErrInvalidArgument)
	}
	if err := zkpath.Validate(basePath); err != nil {
		return nil, fmt.Errorf("discovery %s: %w: %w", basePath, ErrInvalidArgument, err)
	}
	codec, err := NewCodec[T](opts...)
	if err != nil {
		return nil, fmt.Errorf("discovery %s: %w", basePath, err)
	}
	return &Discovery[T]{client: client, base: basePath, codec: codec}, nil
}

// Path returns the registry's base path, as given to New.
func (d *Discovery[T]) Path() string { return d.base }

// servicePath is the path of a service's instances.
func (d *Discovery[T]) servicePath(name string) string { return zkpath.Join(d.base, name) }

// Registration is an instance registered by this process: kept in the
// background while the process runs (a Dynamic one is registered again
// after its session is lost), until Close; Register starts it, and Done
// and Err say when and why it stopped, as every recipe's that runs in the
// background.
type Registration[T any] struct {
	d    *Discovery[T]
	node *node.Node

	updating sync.Mutex // one Update at a time, so inst is what was written last
	mu       sync.Mutex // guards inst
	inst     Instance[T]
}

// Register registers inst and returns once its node exists. An empty ID
// is filled with a random UUID, a zero RegistrationTimeUTC with now, as
// Curator's builder does. A Dynamic instance (the default) is an
// ephemeral node, kept by a node.Node: created again in the next session
// after its session is lost. A DynamicSequential one is an ephemeral
// sequential node, kept the same way and named as curator-x-discovery
// names it, <id><sequence> (so the node's name is not the id, and
// Instance(name, id) does not find it, in Curator as here). Static and Permanent instances are persistent nodes,
// which outlive the process; an existing one of the same id is
// overwritten, as Curator does. A Disabled instance needs a registry
// whose Codec writes the enabled field (WithEnabledField): otherwise it
// would be served as enabled, and Register fails with ErrInvalidArgument.
// If ctx ends before the node exists, Register returns at once, the
// registration is given up and nothing is left: a create on its way is
// deleted after it, in the background. On a closed client it fails at once, with an error
// wrapping framework.ErrClosed.
func (d *Discovery[T]) Register(ctx context.Context, inst Instance[T]) (*Registration[T], error) {
	if err := ctx.Err(); err != nil {
		// The node is made in the background, under a context of its own:
		// with the caller gone already, it would be made only to be deleted.
		return nil, fmt.Errorf("discovery %s: register: %w", d.base, err)
	}
	if inst.ID == "" {
		inst.ID = zkpath.NewProtectionID()
	}
	if inst.RegistrationTimeUTC == 0 {
		inst.RegistrationTimeUTC = time.Now().UnixMilli()
	}
	if err := zkpath.ValidateName(inst.Name); err != nil {
		return nil, fmt.Errorf("discovery %s: register: %w: name %q: %w", d.base, ErrInvalidArgument, inst.Name, err)
	}
	if err := zkpath.ValidateName(inst.ID); err != nil {
		return nil, fmt.Errorf("discovery %s: register: %w: id %q: %w", d.base, ErrInvalidArgument, inst.ID, err)
	}
	if err := d.servable(&inst); err != nil {
		return nil, fmt.Errorf("discovery %s: register: %w", d.base, err)
	}
	data, err := d.codec.Marshal(&inst)
	if err != nil {
		return nil, fmt.Errorf("discovery %s: register: %w", d.base, err)
	}
	mode, opts := framework.Persistent, []node.Option(nil)
	switch inst.ServiceType {
	case "", Dynamic:
		mode = framework.Ephemeral
	case DynamicSequential:
		// <id><sequence>, as curator-x-discovery names it; the node finds
		// a create whose answer was lost by its session and data.
		mode, opts = framework.EphemeralSequential, []node.Option{node.WithoutProtection()}
	}
	n, err := node.New(d.client, zkpath.Join(d.servicePath(inst.Name), inst.ID), mode, data, opts...)
	if err != nil {
		return nil, fmt.Errorf("discovery %s: register: %w", d.base, err)
	}
	if err := n.Start(context.Background()); err != nil { // lives until Close
		return nil, err
	}
	if err := n.AwaitCreated(ctx); err != nil {
		// Given up: ctx has ended, or the node stopped on its own, so Close
		// returns at once; the node's goroutine deletes what its create
		// may still make, after it (node.Node's guarantees).
		_ = n.Close(ctx)
		return nil, fmt.Errorf("discovery %s: register: %w", d.base, err)
	}
	return &Registration[T]{d: d, node: n, inst: inst}, nil
}

// servable refuses an instance that the registry would serve otherwise
// than it says: a disabled one, which a Codec in Curator's compatible
// mode writes without the enabled field, so that every reader takes it as
// enabled (Curator's own serializer drops the field without a word).
func (d *Discovery[T]) servable(inst *Instance[T]) error {
	if inst.Disabled && !d.codec.opts.enabledField {
		return fmt.Errorf("%w: a disabled instance needs WithEnabledField, or it is served as enabled", ErrInvalidArgument)
	}
	return nil
}

// Instance returns the instance as registered (its ID and time filled
// in).
func (r *Registration[T]) Instance() Instance[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inst
}

// Node returns the instance's node, relative to the namespace.
func (r *Registration[T]) Node() string { return r.node.Node() }

// AddListener adds l to hear of the instance's node, on its goroutine:
// each create again (after a lost session or someone's delete), and each
// create that failed in a way time does not cure (node.Failed). It
// returns a function that removes l.
func (r *Registration[T]) AddListener(l node.Listener) (remove func()) {
	return r.node.AddListener(l)
}

// Update writes inst as the registered instance's new data (its name and
// ID must stay), now and in every later create, and returns once the
// registry serves it: its node on the server holds inst, as after
// Curator's updateService. While the node is being created again (after
// a lost session, or someone's delete), Update waits for it. If ctx ends
// first, the error says so, and inst is still the registration's: its
// node gets it as soon as it exists. A Disabled inst needs
// WithEnabledField, as in Register (ErrInvalidArgument otherwise).
func (r *Registration[T]) Update(ctx context.Context, inst Instance[T]) error {
	r.updating.Lock()
	defer r.updating.Unlock()
	if was := r.Instance(); inst.Name != was.Name || inst.ID != was.ID {
		return fmt.Errorf("discovery %s: update: %w: name and id are %s/%s", r.d.base, ErrInvalidArgument, was.Name, was.ID)
	}
	if err := r.d.servable(&inst); err != nil {
		return fmt.Errorf("discovery %s: update: %w", r.d.base, err)
	}
	data, err := r.d.codec.Marshal(&inst)
	if err != nil {
		return fmt.Errorf("discovery %s: update: %w", r.d.base, err)
	}
	if err := r.node.SetData(ctx, data); err != nil {
		return fmt.Errorf("discovery %s: update: %w", r.d.base, err)
	}
	r.mu.Lock()
	r.inst = inst
	r.mu.Unlock()
	// SetData returns once the data is the node's; the registry serves it
	// once the node on the server holds it.
	if err := r.node.AwaitData(ctx); err != nil {
		return fmt.Errorf("discovery %s: update: %w", r.d.base, err)
	}
	return nil
}

// Close unregisters the instance: it deletes the instance's node and
// stops keeping it, as node.Node.Close does.
func (r *Registration[T]) Close(ctx context.Context) error {
	return r.node.Close(ctx)
}

// Done returns a channel that is closed once the registration has
// stopped keeping its node.
func (r *Registration[T]) Done() <-chan struct{} { return r.node.Done() }

// Err returns why the registration stopped on its own (an error wrapping
// ErrClosed when its client was closed); nil while it keeps its node, and
// after Close.
func (r *Registration[T]) Err() error { return r.node.Err() }

// Names returns the names of the services with a node under the base
// path.
func (d *Discovery[T]) Names(ctx context.Context) ([]string, error) {
	names, _, err := d.client.Children(ctx, d.base)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil
	}
	return names, err
}

// Instances returns the instances of the service name, read in one
// multi-read. A node that is not an instance is skipped. Curator differs:
// its queryForInstances fails on such a node, with the serializer's
// exception, and its ServiceCache logs that exception and leaves the node
// out (keeping what it read there before, where a ServiceCache here
// drops it).
func (d *Discovery[T]) Instances(ctx context.Context, name string) ([]Instance[T], error) {
	p := d.servicePath(name)
	ids, _, err := d.client.Children(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return []Instance[T]{}, nil
	}
	if err != nil {
		return nil, err
	}
	ops := make([]framework.ReadOp, len(ids))
	for i, id := range ids {
		ops[i] = framework.GetOp(zkpath.Join(p, id))
	}
	results, err := d.client.MultiRead(ctx, ops...)
	if err != nil {
		return nil, err
	}
	out := make([]Instance[T], 0, len(results))
	for _, r := range results {
		if r.Err != nil {
			continue // gone meanwhile
		}
		if inst, err := d.codec.Unmarshal(r.Data); err == nil {
			out = append(out, *inst)
		}
	}
	return out, nil
}

// Instance returns the instance id of the service name; an error
// wrapping zk.ErrNoNode if there is none, ErrMalformedInstance if its
// node is not an instance.
func (d *Discovery[T]) Instance(ctx context.Context, name, id string) (Instance[T], error) {
	data, _, err := d.client.Get(ctx, zkpath.Join(d.servicePath(name), id))
	if err != nil {
		return Instance[T]{}, err
	}
	inst, err := d.codec.Unmarshal(data)
	if err != nil {
		return Instance[T]{}, err
	}
	return *inst, nil
}
