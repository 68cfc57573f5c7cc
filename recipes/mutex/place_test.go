package mutex_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// cancelAtVerdict cancels, once armed, the ctx of the first transaction
// that fails, as its try ends: the verdict is in, and the caller's ctx
// ends as it comes.
type cancelAtVerdict struct {
	framework.NoopObserver
	cancel atomic.Pointer[context.CancelFunc]
}

func (o *cancelAtVerdict) OnRequest(e framework.RequestEvent) {
	if e.Op != "multi" || e.Err == nil {
		return
	}
	if cancel := o.cancel.Swap(nil); cancel != nil {
		(*cancel)()
	}
}

// A place taken as its caller's ctx ends still says why the place was
// refused: the node whose place to take is gone, or its session is no
// longer the client's. The error wraps ErrLost, so that a downgrade learns
// that the hold it came from is lost, and the ctx's error too. A ctx that
// ends before the answer (the client abandons the transaction) gives the
// ctx's error alone: nothing was refused.
func TestMutex_APlaceRefusedAsItsCtxEndsSaysTheLoss(t *testing.T) {
	servers := zktest.Servers(t)
	obs := &cancelAtVerdict{}
	c := connect(t, servers, framework.WithObserver(obs))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	gone := lockdriver.Spot{Node: h.Node(), Sequence: zkpath.Base(h.Node())[len(zkpath.Base(h.Node()))-10:], Session: h.Session()}
	// A session that is not the client's stands for one the client has
	// left but not yet declared lost.
	otherSession := gone
	otherSession.Session = connect(t, servers).Session()

	for _, tc := range []struct {
		name string
		spot lockdriver.Spot
	}{{"node gone", gone}, {"session changed", otherSession}} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mutex.NewWithDriver(c, path, "place-", lockdriver.StandardDriver(1),
				mutex.WithPlace(func(context.Context) (lockdriver.Spot, bool, error) { return tc.spot, true, nil }))
			require.NoError(t, err)
			verdicts := 0
			for round := 0; round < 20 && verdicts < 3; round++ {
				actx, cancel := context.WithCancel(ctx)
				obs.cancel.Store(&cancel)
				_, err := m.Acquire(actx)
				cancel()
				require.ErrorIs(t, err, context.Canceled, "round %d", round)
				if !errors.Is(err, mutex.ErrLost) {
					// Abandoned before the verdict came: the ctx's error,
					// which hides none.
					assert.NotErrorIs(t, err, zk.ErrNoNode, "round %d", round)
					assert.NotErrorIs(t, err, framework.ErrSessionChanged, "round %d", round)
					continue
				}
				verdicts++
			}
			require.NotZero(t, verdicts, "no round took the verdict")

			ended, cancel := context.WithCancel(ctx)
			cancel()
			_, err = m.Acquire(ended)
			require.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, mutex.ErrLost, "a ctx ended before anything was sent")
			assert.Empty(t, children(t, c, path), "a place node was left")
		})
	}
}
