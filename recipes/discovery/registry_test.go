package discovery_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

func TestMain(m *testing.M) { zktest.Main(m) }

type details struct {
	Description string `json:"description"`
}

func port(p int) *int { return &p }

func registry(t *testing.T, c *framework.Client, base string) *discovery.Discovery[details] {
	t.Helper()
	d, err := discovery.New[details](c, base, discovery.WithPayloadClass("org.example.Details"))
	require.NoError(t, err)
	return d
}

func register(t *testing.T, d *discovery.Discovery[details], inst discovery.Instance[details]) *discovery.Registration[details] {
	t.Helper()
	r, err := d.Register(zktest.Context(t), inst)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Close(ctx)
	})
	return r
}

// A registration is found, updated, and ended by Close, as every recipe
// that runs in the background is: Done closes, and Err is nil.
func TestDiscovery_RegisterFindAndClose(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	d := registry(t, c, base)
	r := register(t, d, discovery.Instance[details]{Name: "orders", Address: "10.0.0.7", Port: port(8080), Payload: details{"orders API"}})
	inst := r.Instance()
	assert.NotEmpty(t, inst.ID, "an id is given")
	assert.NotZero(t, inst.RegistrationTimeUTC)
	assert.Equal(t, base+"/orders/"+inst.ID, r.Node())

	names, err := d.Names(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"orders"}, names)
	all, err := d.Instances(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "orders API", all[0].Payload.Description)
	one, err := d.Instance(ctx, "orders", inst.ID)
	require.NoError(t, err)
	assert.Equal(t, 8080, *one.Port)
	_, stat, err := c.Get(ctx, r.Node())
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner, "a dynamic instance is ephemeral")

	inst.Address = "10.0.0.8"
	require.NoError(t, r.Update(ctx, inst))
	one, err = d.Instance(ctx, "orders", inst.ID)
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.8", one.Address)

	assert.NoError(t, r.Err(), "while it is kept")
	require.NoError(t, r.Close(ctx))
	all, err = d.Instances(ctx, "orders")
	require.NoError(t, err)
	assert.Empty(t, all)
	zktest.WaitClosed(t, r.Done(), time.Second, "Done after Close")
	assert.NoError(t, r.Err(), "closed, not stopped on its own")
}

// A dynamic instance's session expires: it is registered again in the
// next one, and found by the others.
func TestDiscovery_ADynamicInstanceComesBackAfterItsSessionExpired(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	r := register(t, registry(t, c, base), discovery.Instance[details]{Name: "orders", ID: "a"})
	again := make(chan node.Event, 4)
	r.AddListener(func(ev node.Event) { again <- ev })
	seen := registry(t, other, base)
	proxy.Pause()
	assert.Eventually(t, func() bool { all, err := seen.Instances(ctx, "orders"); return err == nil && len(all) == 0 }, 20*time.Second, 20*time.Millisecond, "gone with its session")
	proxy.Resume()
	assert.Eventually(t, func() bool { all, err := seen.Instances(ctx, "orders"); return err == nil && len(all) == 1 }, 20*time.Second, 20*time.Millisecond, "registered again")
	select {
	case ev := <-again:
		assert.Equal(t, node.Created, ev.Type, "the registration's listener hears it")
	case <-time.After(10 * time.Second):
		t.Fatal("the registration's listener heard nothing")
	}
	// Read after the event: the server has the node before its create's
	// answer reaches the registration.
	assert.Equal(t, base+"/orders/a", r.Node())
}

func TestDiscovery_AStaticInstanceOutlivesItsProcess(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	_, err := registry(t, c, base).Register(ctx, discovery.Instance[details]{Name: "db", ID: "primary", ServiceType: discovery.Static})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	inst, err := registry(t, other, base).Instance(ctx, "db", "primary")
	require.NoError(t, err)
	assert.Equal(t, discovery.Static, inst.ServiceType)
	require.NoError(t, other.Delete(ctx, base+"/db/primary", -1))
}

func TestDiscovery_BadInstanceFailsTypedWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr())
	d := registry(t, c, "/services")
	before := proxy.Requests(zktest.OpCreate)
	for name, inst := range map[string]discovery.Instance[details]{
		"no name":  {},
		"bad name": {Name: "a/b"},
		"bad id":   {Name: "a", ID: ".."},
		"big port": {Name: "a", Port: port(1 << 40)},
	} {
		_, err := d.Register(zktest.Context(t), inst)
		assert.ErrorIs(t, err, discovery.ErrInvalidArgument, name)
	}
	assert.Equal(t, before, proxy.Requests(zktest.OpCreate))
	_, err := discovery.New[details](nil, "/services")
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
}

// A Static registration whose ctx ends while its create's answer is late:
// the create lands, and is deleted after it; no instance is left that no
// process owns.
func TestDiscovery_APersistentRegistrationGivenUpLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	_, err := other.Create(ctx, base+"/db", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	d := registry(t, c, base)
	proxy.HoldRepliesFrom(zktest.OpCreate)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = d.Register(short, discovery.Instance[details]{Name: "db", ID: "primary", ServiceType: discovery.Static})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	ok, _, err := other.Exists(ctx, base+"/db/primary")
	require.NoError(t, err)
	require.True(t, ok, "the create reached the server")
	proxy.ReleaseReplies()
	assert.Eventually(t, func() bool {
		ok, _, err := other.Exists(ctx, base+"/db/primary")
		return err == nil && !ok
	}, 10*time.Second, 20*time.Millisecond, "the instance is left, owned by no process")
}

// A registration whose ctx ends before its node exists leaves nothing.
func TestDiscovery_ARegistrationGivenUpLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := zktest.Connect(t, zktest.Servers(t))
	base := zktest.UniquePath(t)
	d := registry(t, c, base)
	proxy.Pause()
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := d.Register(short, discovery.Instance[details]{Name: "orders", ID: "a"})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	proxy.Resume()
	proxy.Cut()
	time.Sleep(500 * time.Millisecond) // the client reconnects; a late create would land now
	assert.Never(t, func() bool {
		ok, _, err := other.Exists(zktest.Context(t), base+"/orders/a")
		return err == nil && ok
	}, time.Second, 50*time.Millisecond)
}

// Register on a closed client fails at once, as every other recipe's
// call does, rather than waiting for its ctx to end.
func TestDiscovery_RegisterOnAClosedClientFailsAtOnce(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	d := registry(t, c, zktest.UniquePath(t))
	require.NoError(t, c.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := d.Register(ctx, discovery.Instance[details]{Name: "orders"})
	require.ErrorIs(t, err, framework.ErrClosed)
}

// Update while the instance's node is being created again, its create
// carrying the old instance: Update returns once the registry serves the
// new one, as Curator's updateService returns once it is written.
func TestRegistration_UpdateWhileTheNodeIsCreatedAgainReturnsOnceServed(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	d, err := discovery.New[details](c, base, discovery.WithPayloadClass("org.example.Details"), discovery.WithEnabledField())
	require.NoError(t, err)
	r := register(t, d, discovery.Instance[details]{Name: "orders", ID: "a"})
	proxy.HoldRepliesFrom(zktest.OpCreate)
	require.NoError(t, other.Delete(ctx, base+"/orders/a", -1))
	require.Eventually(t, func() bool {
		ok, _, err := other.Exists(ctx, base+"/orders/a")
		return err == nil && ok && r.Node() == ""
	}, 10*time.Second, 10*time.Millisecond, "the create again reaches the server, with the old instance")
	inst := r.Instance()
	inst.Disabled = true
	updated := make(chan error, 1)
	go func() { updated <- r.Update(ctx, inst) }() // ends once served, or with ctx
	require.Eventually(t, func() bool { return r.Instance().Disabled }, 10*time.Second, 10*time.Millisecond, "Update has handed the instance on")
	proxy.ReleaseReplies()
	require.NoError(t, <-updated)
	served, err := registry(t, other, base).Instance(ctx, "orders", "a")
	require.NoError(t, err)
	assert.True(t, served.Disabled, "Update returned while the registry served the instance enabled")
}

// A Codec in Curator's compatible mode does not write enabled, so a
// disabled instance would be served as enabled: Register and Update
// refuse it rather than return nil.
func TestDiscovery_ADisabledInstanceNeedsTheEnabledField(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	d := registry(t, c, base)
	_, err := d.Register(ctx, discovery.Instance[details]{Name: "orders", ID: "a", Disabled: true})
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
	r := register(t, d, discovery.Instance[details]{Name: "orders", ID: "b"})
	inst := r.Instance()
	inst.Disabled = true
	assert.ErrorIs(t, r.Update(ctx, inst), discovery.ErrInvalidArgument)
	assert.False(t, r.Instance().Disabled)
	all, err := d.Instances(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, all, 1, "nothing registered disabled")
	assert.False(t, all[0].Disabled)
}

// A DynamicSequential instance's node is named <id><sequence>, as
// curator-x-discovery names it, and a create whose answer was lost
// leaves one node, found again without a protection id in its name.
func TestDiscovery_ADynamicSequentialInstanceIsNamedAsCuratorNamesIt(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	_, err := other.Create(ctx, base+"/orders", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	d := registry(t, c, base)
	proxy.DropNextReply(zktest.OpMulti)
	r := register(t, d, discovery.Instance[details]{Name: "orders", ID: "a", ServiceType: discovery.DynamicSequential})
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti), "the create's answer was lost")
	names := zktest.Children(t, other, base+"/orders")
	require.Len(t, names, 1, "one node for one registration")
	assert.Regexp(t, `^a[0-9]{10}$`, names[0])
	assert.Equal(t, base+"/orders/"+names[0], r.Node())
	all, err := registry(t, other, base).Instances(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "a", all[0].ID)
	require.NoError(t, r.Close(ctx))
	assert.Empty(t, zktest.Children(t, other, base+"/orders"))

	register(t, d, discovery.Instance[details]{Name: "payments", ID: "b", ServiceType: discovery.DynamicSequential})
	names = zktest.Children(t, other, base+"/payments")
	require.Len(t, names, 1, "its service's node made on the way")
	assert.Regexp(t, `^b[0-9]{10}$`, names[0])
}
