package atomicvalue_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// Go and Curator increment one DistributedAtomicLong at once, several of
// each; the value ends at the sum of the increments that succeeded, on
// both sides.
func TestCurator_GoAndJavaIncrementOneLongTogether(t *testing.T) {
	testIncrementTogether(t, "")
}

// The same with both sides promoted to one lock after a single optimistic
// try: Go's mutex and Curator's InterProcessMutex on the lock path take
// turns.
func TestCurator_GoAndJavaPromotedToOneLockIncrementTogether(t *testing.T) {
	testIncrementTogether(t, zktest.UniquePath(t)+"-lock")
}

func testIncrementTogether(t *testing.T, lockPath string) {
	const goroutines, javaCalls, increments = 3, 3, 15
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/n"
	var opts []atomicvalue.Option
	retries := 10 // Curator's, 10 ms apart
	if lockPath != "" {
		retries = 0
		opts = append(opts, atomicvalue.WithRetryPolicy(framework.NoRetry()),
			atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: lockPath}))
	}

	var (
		wg                       sync.WaitGroup
		mu                       sync.Mutex
		goSucceeded, javaCount   int
		goPromoted, javaPromoted int
	)
	for range goroutines {
		l := newLong(t, connect(t, servers), path, opts...)
		wg.Add(1)
		go func() { // ends after its increments
			defer wg.Done()
			for range increments {
				r, err := l.Increment(ctx)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				if r.Succeeded {
					goSucceeded++
				}
				goPromoted += r.Stats.PromotedTries
				mu.Unlock()
			}
		}()
	}
	for range javaCalls {
		wg.Add(1)
		go func() { // ends after its increments: each call runs on a thread of the peer's pool
			defer wg.Done()
			for range increments {
				r, err := cur.AtomicLongAdd(ctx, path, 1, retries, lockPath)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				if r.Succeeded {
					javaCount++
				}
				javaPromoted += r.PromotedTries
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	want := int64(goSucceeded + javaCount)
	got, err := newLong(t, connect(t, servers), path).Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got.PreValue, "Go's view")
	java, err := cur.AtomicLongGet(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, want, java, "Curator's view")
	assert.Positive(t, goSucceeded)
	assert.Positive(t, javaCount)
	if lockPath != "" {
		assert.Positive(t, goPromoted+javaPromoted, "some updates were promoted")
		assert.Empty(t, zktest.Children(t, connect(t, servers), lockPath), "every lock node deleted")
	}
	t.Logf("succeeded: Go %d, Java %d of %d each; tries under the lock: Go %d, Java %d",
		goSucceeded, javaCount, goroutines*increments, goPromoted, javaPromoted)
}

// Each side reads what the other wrote: a Long beyond 32 bits and below
// zero, an Int, bytes.
func TestCurator_ReadsTheValuesGoWritesAndGoReadsCurators(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	base := zktest.UniquePath(t)

	l := newLong(t, c, base+"/long")
	_, err := l.Add(ctx, -(1<<40 + 3))
	require.NoError(t, err)
	java, err := cur.AtomicLongGet(ctx, l.Path())
	require.NoError(t, err)
	assert.Equal(t, int64(-(1<<40 + 3)), java)
	r, err := cur.AtomicLongAdd(ctx, l.Path(), 1<<41, 0, "")
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int64(-(1<<40 + 3)), r.Pre, "Curator's pre-value is Go's write")
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<40-3), got.PreValue)

	n := newInt(t, c, base+"/int")
	ri, err := cur.AtomicIntAdd(ctx, n.Path(), -7, 0, "") // Curator creates it
	require.NoError(t, err)
	assert.True(t, ri.Succeeded)
	gi, err := n.Add(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, int32(-7), gi.PreValue)
	javaInt, err := cur.AtomicIntGet(ctx, n.Path())
	require.NoError(t, err)
	assert.Equal(t, int32(3), javaInt)

	b := newBytes(t, c, base+"/bytes")
	javaBytes, err := cur.AtomicValueGet(ctx, b.Path())
	require.NoError(t, err)
	assert.Nil(t, javaBytes, "missing on both sides")
	require.NoError(t, b.ForceSet(ctx, []byte{0, 0xff, 7}))
	javaBytes, err = cur.AtomicValueGet(ctx, b.Path())
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0xff, 7}, javaBytes)
	require.NoError(t, cur.AtomicValueForceSet(ctx, b.Path(), []byte("java")))
	rb, err := b.CompareAndSet(ctx, []byte("java"), []byte("go"))
	require.NoError(t, err)
	assert.True(t, rb.Succeeded)
}

// A Long that Curator wrote is no Int for Go: a clear error, and nothing
// written over Curator's value.
func TestCurator_LongIsMalformedAsAnInt(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, cur.AtomicLongForceSet(ctx, path, 5))

	_, err := newInt(t, connect(t, servers), path).Increment(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrMalformedValue)
	java, err := cur.AtomicLongGet(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, int64(5), java)
}

// Numbers a CachedLong hands out are never a Curator increment's of the
// same DistributedAtomicLong, as the package promises: Go takes chunks
// with one Add each while Java increments, and no number comes twice.
func TestCurator_CachedLongNumbersAreNoneOfJavasIncrements(t *testing.T) {
	const nexts, javaIncrements = 40, 20
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/n"
	cached, err := atomicvalue.NewCachedLong(connect(t, servers), path, 3)
	require.NoError(t, err)

	var java []int64
	done := make(chan struct{})
	go func() { // ends after Java's increments
		defer close(done)
		for range javaIncrements {
			r, err := cur.AtomicLongAdd(ctx, path, 1, 10, "")
			if !assert.NoError(t, err) {
				return
			}
			if r.Succeeded {
				java = append(java, r.Post)
			}
		}
	}()
	var handed []int64
	for range nexts {
		r, err := cached.Next(ctx)
		require.NoError(t, err)
		if r.Succeeded {
			handed = append(handed, r.PostValue)
		}
	}
	<-done
	seen := make(map[int64]string)
	for _, n := range handed {
		assert.Empty(t, seen[n], "Go's %d handed out twice", n)
		seen[n] = "go"
	}
	for _, n := range java {
		assert.Empty(t, seen[n], "Java's increment to %d also handed out by %s", n, seen[n])
		seen[n] = "java"
	}
	assert.Positive(t, len(handed))
	assert.Positive(t, len(java))
}
