package multilock_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// heldTimeout bounds a timed acquire that is to find the lock held and say
// ErrNotAcquired: it must outlast the answers that show the lock held. A
// loaded machine answered later than the 100 to 300 ms these acquires had,
// and they rightly said ErrUnreachable (the deadline ran out before the
// server answered). The lock stays held throughout, so the acquire waits
// it out whatever it is.
const heldTimeout = time.Second

// locks is one process's view of a test's three locks under base: a mutex
// at base/a, the write lock of a read/write lock at base/b and a semaphore
// mutex at base/c, made on one client.
type locks struct {
	base string
	m    *mutex.Mutex
	rw   *rwlock.ReadWriteLock
	sem  *semaphore.Mutex
}

func newLocks(t testing.TB, c *framework.Client, base string) locks {
	t.Helper()
	m, err := mutex.New(c, base+"/a")
	require.NoError(t, err)
	rw, err := rwlock.New(c, base+"/b")
	require.NoError(t, err)
	sem, err := semaphore.NewMutex(c, base+"/c")
	require.NoError(t, err)
	return locks{base: base, m: m, rw: rw, sem: sem}
}

// parts returns the three parts, in the order a, b, c.
func (l locks) parts() []multilock.Part {
	return []multilock.Part{multilock.Mutex(l.m), multilock.Write(l.rw), multilock.SemaphoreMutex(l.sem)}
}

// multi returns the multi-lock of the three parts, in the order a, b, c.
func (l locks) multi(t testing.TB) *multilock.Lock {
	t.Helper()
	ml, err := multilock.New(l.parts()...)
	require.NoError(t, err)
	return ml
}

// nodes returns every lock and lease node under base's three locks,
// sorted: what is left behind when nothing is held.
func nodes(t testing.TB, c *framework.Client, base string) []string {
	t.Helper()
	var all []string
	for _, dir := range []string{base + "/a", base + "/b", base + "/c/locks", base + "/c/leases"} {
		for _, name := range children(t, c, dir) {
			all = append(all, dir+"/"+name)
		}
	}
	slices.Sort(all)
	return all
}
