package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

func TestNew_RefusesPartsThatCouldNeverBeTaken(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	l := newLocks(t, c, zktest.UniquePath(t))
	sameA, err := mutex.New(c, l.base+"/a")
	require.NoError(t, err)
	a := multilock.Mutex(l.m)
	for name, parts := range map[string][]multilock.Part{
		"no parts":                       nil,
		"a nil part":                     {a, nil},
		"a nil mutex":                    {multilock.Mutex(nil)},
		"a nil read lock":                {multilock.Read(nil)},
		"a nil write lock":               {multilock.Write(nil)},
		"a nil semaphore mutex":          {multilock.SemaphoreMutex(nil)},
		"the same mutex twice":           {a, multilock.Write(l.rw), a},
		"two mutexes on one path":        {a, multilock.Mutex(sameA)},
		"both sides of one rwlock":       {multilock.Read(l.rw), multilock.Write(l.rw)},
		"the same semaphore mutex twice": {multilock.SemaphoreMutex(l.sem), multilock.SemaphoreMutex(l.sem)},
	} {
		_, err := multilock.New(parts...)
		assert.ErrorIs(t, err, multilock.ErrInvalidArgument, "New with %s", name)
		_, err = multilock.NewSorted(parts...)
		assert.ErrorIs(t, err, multilock.ErrInvalidArgument, "NewSorted with %s", name)
	}
}

func TestMultiLock_BadOwnerFailsBeforeAnyRequest(t *testing.T) {
	addr, requests := zktest.Counted(t)
	c := connect(t, addr)
	ml := newLocks(t, c, zktest.UniquePath(t)).multi(t)
	before := requests()
	for _, owner := range []any{[]int{1}, &struct{}{}} {
		_, err := ml.Acquire(mutex.ContextWithOwner(testContext(t), owner))
		assert.ErrorIs(t, err, multilock.ErrInvalidArgument, "owner %T", owner)
	}
	assert.Equal(t, before, requests(), "a bad owner was refused after a request")
}

func TestNewSorted_TakesThePartsInPathOrder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	l := newLocks(t, c, zktest.UniquePath(t))
	p := l.parts()
	ml, err := multilock.NewSorted(p[2], p[0], p[1])
	require.NoError(t, err)
	assert.Equal(t, []string{l.base + "/a", l.base + "/b", l.base + "/c"}, ml.Paths())
	given, err := multilock.New(p[2], p[0], p[1])
	require.NoError(t, err)
	assert.Equal(t, []string{l.base + "/c", l.base + "/a", l.base + "/b"}, given.Paths(), "New keeps the order given")
}

func TestMultiLock_HoldsEveryPartAndReleasesThemAll(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLocks(t, c, zktest.UniquePath(t))
	h, err := l.multi(t).Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Err())

	parts := h.Parts()
	require.Len(t, parts, 3)
	assert.IsType(t, &mutex.Hold{}, parts[0])
	assert.IsType(t, &rwlock.Hold{}, parts[1])
	assert.IsType(t, &leases.Lease{}, parts[2])
	assert.Len(t, children(t, c, l.base+"/a"), 1)
	assert.Len(t, children(t, c, l.base+"/b"), 1)
	assert.Len(t, children(t, c, l.base+"/c/leases"), 1)
	assert.Equal(t, []string{parts[0].Node(), parts[1].Node(), parts[2].Node()}, h.Nodes(), "each part's node, in order")
	assert.Equal(t, l.base+"/c/leases", zkpath.Parent(parts[2].Node()))
	tokens, err := h.FencingTokens(ctx)
	require.NoError(t, err)
	require.Len(t, tokens, 3)
	for i, token := range tokens {
		assert.Positive(t, token, "part %d's token", i)
	}
	assert.Less(t, tokens[0], tokens[1], "the parts are taken in order")

	require.NoError(t, h.Release(ctx))
	assert.Empty(t, nodes(t, c, l.base))
	require.ErrorIs(t, h.Err(), multilock.ErrReleased)
	require.ErrorIs(t, h.Release(ctx), multilock.ErrReleased, "a second release")
	again, err := l.multi(t).TryAcquire(ctx)
	require.NoError(t, err, "the released parts are free again")
	require.NoError(t, again.Release(ctx))
}

// holdPart holds part i of l (on a client of its own) until the returned
// function is called.
func holdPart(t *testing.T, l locks, i int) (release func()) {
	t.Helper()
	ml, err := multilock.New(l.parts()[i])
	require.NoError(t, err)
	h, err := ml.Acquire(testContext(t))
	require.NoError(t, err)
	return func() { require.NoError(t, h.Release(testContext(t))) }
}

func TestMultiLock_PartHeldElsewhereTimesTheWholeOutAndLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	ml := newLocks(t, c, base).multi(t)
	other := newLocks(t, connect(t, zktest.Servers(t)), base)
	for i := range 3 {
		release := holdPart(t, other, i)
		theirs := nodes(t, c, base)
		_, err := ml.AcquireTimeout(ctx, heldTimeout)
		require.ErrorIs(t, err, multilock.ErrNotAcquired, "part %d held elsewhere", i)
		assert.Equal(t, theirs, nodes(t, c, base), "a timed-out acquire left nodes behind (part %d held elsewhere)", i)
		_, err = ml.TryAcquire(ctx)
		require.ErrorIs(t, err, multilock.ErrNotAcquired, "part %d held elsewhere", i)
		_, err = ml.AcquireTimeout(ctx, 0)
		require.ErrorIs(t, err, multilock.ErrNotAcquired, "part %d held elsewhere", i)
		assert.Equal(t, theirs, nodes(t, c, base), "a one-attempt acquire left nodes behind (part %d held elsewhere)", i)
		release()
	}
	h, err := ml.AcquireTimeout(ctx, 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	assert.Empty(t, nodes(t, c, base))
}

func TestMultiLock_WaitsForAPartHeldElsewhere(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	ml := newLocks(t, c, base).multi(t)
	release := holdPart(t, newLocks(t, connect(t, zktest.Servers(t)), base), 2)
	got := make(chan error, 1)
	go func() { // ends when the acquire does: after release, or with the test's ctx
		h, err := ml.Acquire(ctx)
		if err == nil {
			err = h.Release(context.Background())
		}
		got <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, c, base+"/c/leases")) == 2 }, 10*time.Second, 10*time.Millisecond, "the acquire waits at the third part")
	assert.Len(t, children(t, c, base+"/a"), 1, "the first parts are held while the third is waited for")
	release()
	require.NoError(t, <-got)
	assert.Empty(t, nodes(t, c, base))
}
