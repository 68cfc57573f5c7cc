package discovery_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

func startedProvider(t testing.TB, d *discovery.Discovery[details], name string, opts ...discovery.Option) *discovery.Provider[details] {
	t.Helper()
	p, err := d.Provider(name, opts...)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	require.NoError(t, p.AwaitInitialized(zktest.Context(t)))
	return p
}

func TestProvider_StrategiesAndTheDownInstancePolicy(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	base := zktest.UniquePath(t)
	d := registry(t, c, base)
	for _, id := range []string{"a", "b", "c"} {
		register(t, d, discovery.Instance[details]{Name: "orders", ID: id})
	}
	rr := startedProvider(t, d, "orders")
	assert.Eventually(t, func() bool { return len(rr.Instances()) == 3 }, 10*time.Second, 10*time.Millisecond)
	var got []string
	for range 4 {
		inst, err := rr.Instance()
		require.NoError(t, err)
		got = append(got, inst.ID)
	}
	assert.Equal(t, []string{"a", "b", "c", "a"}, got)

	sticky := startedProvider(t, d, "orders", discovery.WithStrategy(discovery.Sticky), discovery.WithDownInstancePolicy(time.Hour, 2))
	first, err := sticky.Instance()
	require.NoError(t, err)
	again, err := sticky.Instance()
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ID)
	sticky.NoteError(first)
	still, _ := sticky.Instance()
	assert.Equal(t, first.ID, still.ID, "one error is under the threshold")
	sticky.NoteError(first)
	moved, err := sticky.Instance()
	require.NoError(t, err)
	assert.NotEqual(t, first.ID, moved.ID, "down after two")
	for _, inst := range sticky.Instances() {
		sticky.NoteError(inst)
		sticky.NoteError(inst)
	}
	_, err = sticky.Instance()
	assert.ErrorIs(t, err, discovery.ErrNoInstance)
}

// A service cache sees instances come, change and go, and tells its
// listeners each change as an event of the instance, after applying it.
func TestServiceCache_SeesInstancesComeChangeAndGo(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	other := zktest.Connect(t, zktest.Servers(t))
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t)
	sc, err := registry(t, c, base).Cache("orders")
	require.NoError(t, err)
	events := make(chan discovery.Event[details], 16)
	sc.AddListener(func(ev discovery.Event[details]) {
		if ev.Type != discovery.Initialized { // one instance, x, comes and goes
			assert.Equal(t, ev.Type != discovery.Unregistered, len(sc.Instances()) == 1, "%v: applied first", ev.Type)
		}
		events <- ev
	})
	require.NoError(t, sc.Start(context.Background()))
	defer sc.Close(context.Background())
	require.NoError(t, sc.AwaitInitialized(ctx))
	assert.Equal(t, discovery.Event[details]{Type: discovery.Initialized}, <-events)

	r := register(t, registry(t, other, base), discovery.Instance[details]{Name: "orders", ID: "x", Payload: details{"x"}})
	ev := <-events
	assert.Equal(t, discovery.Registered, ev.Type)
	assert.Equal(t, "x", ev.ID)
	assert.Equal(t, "x", ev.Instance.Payload.Description)
	assert.Equal(t, "x", sc.Instances()[0].Payload.Description)

	inst := r.Instance()
	inst.Payload.Description = "y"
	require.NoError(t, r.Update(ctx, inst))
	ev = <-events
	assert.Equal(t, discovery.Updated, ev.Type)
	assert.Equal(t, "y", ev.Instance.Payload.Description)

	require.NoError(t, r.Close(ctx))
	assert.Equal(t, discovery.Event[details]{Type: discovery.Unregistered, ID: "x"}, <-events)
	assert.Empty(t, sc.Instances())
}

// BenchmarkProvider_Instance: a lookup from a warm provider, no request.
func BenchmarkProvider_Instance(b *testing.B) {
	c := zktest.Connect(b, zktest.Servers(b))
	base := zktest.UniquePath(b)
	d, err := discovery.New[details](c, base)
	require.NoError(b, err)
	for i := range 20 {
		_, err := d.Register(zktest.Context(b), discovery.Instance[details]{Name: "orders", ID: fmt.Sprintf("i%02d", i)})
		require.NoError(b, err)
	}
	p := startedProvider(b, d, "orders")
	require.Eventually(b, func() bool { return len(p.Instances()) == 20 }, 10*time.Second, 10*time.Millisecond)
	b.ResetTimer()
	for range b.N {
		if _, err := p.Instance(); err != nil {
			b.Fatal(err)
		}
	}
}

// A service cache runs in the background as every recipe there: Done
// closes once it has stopped, and Err says why it stopped on its own (nil
// after Close).
func TestServiceCache_DoneClosesOnceStoppedAndErrSaysWhy(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	d := registry(t, c, zktest.UniquePath(t))
	closed, err := d.Cache("orders")
	require.NoError(t, err)
	require.NoError(t, closed.Start(context.Background()))
	require.NoError(t, closed.AwaitInitialized(zktest.Context(t)))
	assert.NoError(t, closed.Err(), "while it runs")
	require.NoError(t, closed.Close(zktest.Context(t)))
	zktest.WaitClosed(t, closed.Done(), time.Second, "Done after Close")
	assert.NoError(t, closed.Err(), "closed, not stopped on its own")

	ctx, cancel := context.WithCancel(context.Background())
	ended, err := d.Provider("orders")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ended.Close(context.Background()) })
	require.NoError(t, ended.Start(ctx))
	require.NoError(t, ended.AwaitInitialized(zktest.Context(t)))
	cancel()
	zktest.WaitClosed(t, ended.Done(), 10*time.Second, "Done after the end of Start's ctx")
	require.ErrorIs(t, ended.Err(), context.Canceled)
}

// The registry has one option type: a codec's option given to a provider,
// or a provider's to the registry's codec, is refused, before any request.
func TestDiscovery_AnOptionOfAnotherPartIsRefused(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	_, err := discovery.New[details](c, "/services", discovery.WithStrategy(discovery.Random))
	require.ErrorIs(t, err, discovery.ErrInvalidArgument)
	_, err = discovery.NewCodec[details](discovery.WithDownInstancePolicy(time.Second, 1))
	require.ErrorIs(t, err, discovery.ErrInvalidArgument)
	_, err = registry(t, c, "/services").Provider("orders", discovery.WithEnabledField())
	require.ErrorIs(t, err, discovery.ErrInvalidArgument)
	_, err = registry(t, c, "/services").Provider("orders", nil)
	require.ErrorIs(t, err, discovery.ErrInvalidArgument)
}
