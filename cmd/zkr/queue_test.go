package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// queueArgs is `zkr queue --servers S [flags] VERB PATH [ITEM...]`.
func queueArgs(t *testing.T, flags []string, verbPathItems ...string) []string {
	return append(append([]string{"queue", "--servers", zktest.Servers(t)}, flags...), verbPathItems...)
}

// zkrQueue runs zkr queue, requires status 0, and returns its stdout.
func zkrQueue(t *testing.T, flags []string, verbPathItems ...string) string {
	t.Helper()
	code, stdout, stderr := runZkr(t, queueArgs(t, flags, verbPathItems...)...)
	require.Equal(t, 0, code, "%q: %s", verbPathItems, stderr)
	assert.Empty(t, stderr)
	return stdout
}

// takeFromGo takes one item of the queue at path with a Go consumer.
func takeFromGo(t *testing.T, path string) string {
	q, err := queue.New(client(t), path, queue.StringCodec{})
	require.NoError(t, err)
	got := make(chan string, 1)
	var cn *queue.Consumer[string]
	cn, err = q.NewConsumer(func(ctx context.Context, item string) error {
		got <- item
		return cn.Close(ctx) // one item
	})
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctxOf(t)))
	defer func() { _ = cn.Close(context.Background()) }()
	return <-got
}

// Items zkr puts are Curator's DistributedQueue items: zkr lists them, takes
// them one at a time in order, and a Go consumer takes the rest; a Go
// producer's item is zkr's to take.
func TestQueue_PutItemsAreTakenInOrderByZkrAndByGo(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t) + "/jobs"
	assert.Equal(t, "queue put: "+path+" (3 items)\n", zkrQueue(t, nil, "put", path, "resize", "upload", "-1"))
	assert.Equal(t, "queue-0000000000 \"resize\"\nqueue-0000000001 \"upload\"\nqueue-0000000002 \"-1\"\n", zkrQueue(t, nil, "ls", path))
	assert.Equal(t, "resize\n", zkrQueue(t, nil, "take", path))
	assert.Equal(t, "upload\n", zkrQueue(t, nil, "take", path))
	assert.Equal(t, "-1", takeFromGo(t, path), "a Go consumer takes what zkr put")

	q, err := queue.New(client(t), path, queue.StringCodec{})
	require.NoError(t, err)
	require.NoError(t, q.Put(ctxOf(t), "from go"))
	assert.Equal(t, "from go\n", zkrQueue(t, nil, "take", path))
	assert.Empty(t, zkrQueue(t, nil, "ls", path), "nothing left")
}

// take waits for an item; with --timeout it gives up with status 4 when
// none came, and a signal interrupts it (128+N) with nothing taken.
func TestQueue_TakeWaitsForAnItemOrTimesOutWithStatus4(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	code, stdout, stderr := runZkr(t, queueArgs(t, []string{"--timeout", "3s"}, "take", path)...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "no item came within --timeout (3s)")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)

	for _, signalled := range []bool{false, true} {
		path := zktest.UniquePath(t) + "/" + map[bool]string{false: "put", true: "signalled"}[signalled]
		waiter := startZkr(t, nil, queueArgs(t, nil, "take", path)...)
		require.Eventually(t, func() bool { return exists(t, path) }, time.Minute, 20*time.Millisecond,
			"the consumer makes the queue's directory as it lists it: %s", waiter.stderr)
		if signalled {
			waiter.signal(t, syscall.SIGTERM)
			assert.Equal(t, 128+int(syscall.SIGTERM), waiter.wait(t, time.Minute), waiter.stderr.String())
			assert.Empty(t, waiter.stdout.String())
			continue
		}
		q, err := queue.New(client(t), path, queue.StringCodec{})
		require.NoError(t, err)
		require.NoError(t, q.Put(ctxOf(t), "late"))
		assert.Equal(t, 0, waiter.wait(t, time.Minute), waiter.stderr.String())
		assert.Equal(t, "late\n", waiter.stdout.String())
	}
}

// exists tells whether the node at path exists.
func exists(t *testing.T, path string) bool {
	ok, _, err := client(t).Exists(ctxOf(t), path)
	require.NoError(t, err)
	return ok
}

// A node of several items (--multi, Curator's putMulti) is one take: zkr
// prints its items in order and deletes it.
func TestQueue_PutMultiIsOneNodeThatOneTakePrintsWhole(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	zkrQueue(t, []string{"--multi"}, "put", path, "a", "b")
	zkrQueue(t, nil, "put", path, "c")
	assert.Equal(t, "queue-0000000000 \"a\" \"b\"\nqueue-0000000001 \"c\"\n", zkrQueue(t, nil, "ls", path))
	assert.Equal(t, "a\nb\n", zkrQueue(t, nil, "take", path))
	assert.Equal(t, "queue-0000000001 \"c\"\n", zkrQueue(t, nil, "ls", path))
}

// The kinds: a priority queue's lowest number goes first, a delay queue's
// item waits for its time, an id queue's item is Go's IDQueue.Remove's to
// remove by its id.
func TestQueue_PriorityDelayAndIDQueuesAreCuratorsKinds(t *testing.T) {
	t.Parallel()
	root := zktest.UniquePath(t)
	zkrQueue(t, []string{"--priority", "5"}, "put", root+"/alerts", "disk 80%")
	zkrQueue(t, []string{"--priority", "-10"}, "put", root+"/alerts", "disk full")
	assert.Equal(t, "disk full\n", zkrQueue(t, []string{"--kind", "priority"}, "take", root+"/alerts"))

	zkrQueue(t, []string{"--delay", "1h"}, "put", root+"/later", "report")
	code, _, stderr := runZkr(t, queueArgs(t, []string{"--kind", "delay", "--timeout", "3s"}, "take", root+"/later")...)
	assert.Equal(t, exitNotAcquired, code, "not due for an hour: %s", stderr)
	assert.Len(t, zktest.Children(t, client(t), root+"/later"), 1)

	zkrQueue(t, []string{"--id", "order/7"}, "put", root+"/orders", "ship")
	assert.Regexp(t, `^queue-\|order_7\|0000000000 "ship"\n$`, zkrQueue(t, []string{"--kind", "id"}, "ls", root+"/orders"))
	ids, err := queue.NewIDQueue(client(t), root+"/orders", queue.StringCodec{})
	require.NoError(t, err)
	n, err := ids.Remove(ctxOf(t), "order/7")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// With a lock path an item a consumer holds shows as locked and is not
// zkr's to take; zkr's own take deletes the item and its lock node
// together after printing.
func TestQueue_LockSafeTakeLeavesAHeldItemAndDeletesItsOwnWithItsLock(t *testing.T) {
	t.Parallel()
	path, locks := zktest.UniquePath(t)+"/q", zktest.UniquePath(t)+"/q-locks"
	lockPath := []string{"--lock-path", locks}
	zkrQueue(t, lockPath, "put", path, "held", "free")
	assert.Empty(t, zktest.Children(t, client(t), locks), "the producer's marker goes with zkr")

	q, err := queue.New(client(t), path, queue.StringCodec{}, queue.WithLockPath(locks))
	require.NoError(t, err)
	took, done := make(chan string, 1), make(chan struct{})
	cn, err := q.NewConsumer(func(_ context.Context, item string) error {
		took <- item
		<-done
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctxOf(t)))
	defer func() { _ = cn.Close(context.Background()) }()
	require.Equal(t, "held", <-took)
	assert.Equal(t, "queue-0000000000 \"held\" (locked)\nqueue-0000000001 \"free\"\n", zkrQueue(t, lockPath, "ls", path))

	assert.Equal(t, "free\n", zkrQueue(t, lockPath, "take", path), "zkr passes over the held item")
	code, _, stderr := runZkr(t, queueArgs(t, append(lockPath, "--timeout", "3s"), "take", path)...)
	assert.Equal(t, exitNotAcquired, code, "the only item is held: %s", stderr)
	assert.Equal(t, []string{"queue-0000000000"}, zktest.Children(t, client(t), locks), "only the Go consumer's lock")
	close(done)
	// The Go consumer goes on to the item zkr took, from its listing: it
	// locks it for a moment, finds it gone and unlocks it.
	require.Eventually(t, func() bool {
		return len(zktest.Children(t, client(t), path)) == 0 && len(zktest.Children(t, client(t), locks)) == 0
	}, time.Minute, 20*time.Millisecond, "item and locks go")
}

// --json prints an object per item taken (bytes that are not UTF-8 in
// base64) and one for the listing.
func TestQueue_JSONIsAnObjectPerItemAndOneListing(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	q, err := queue.New(client(t), path, queue.BytesCodec{})
	require.NoError(t, err)
	require.NoError(t, q.Put(ctxOf(t), []byte("text")))
	require.NoError(t, q.Put(ctxOf(t), []byte{0xff, 0x00}))
	assert.JSONEq(t, `{"path":"`+path+`","nodes":[{"node":"queue-0000000000","items":["text"],"locked":false},`+
		`{"node":"queue-0000000001","items_base64":["/wA="],"locked":false}]}`, zkrQueue(t, []string{"--json"}, "ls", path))
	assert.JSONEq(t, `{"path":"`+path+`","item":"text"}`, zkrQueue(t, []string{"--json"}, "take", path))
	assert.JSONEq(t, `{"path":"`+path+`","item_base64":"/wA="}`, zkrQueue(t, []string{"--json"}, "take", path))
	assert.JSONEq(t, `{"path":"`+path+`","nodes":[]}`, zkrQueue(t, []string{"--json"}, "ls", path))
}

// A put whose answer is lost ran once or not at all: without a lock path
// zkr says so (status 1); with one, the put is applied once and zkr says
// nothing. Either way the queue holds the item once.
func TestQueue_PutWhoseAnswerIsLostIsUnknownWithoutLockPathAndExactWithIt(t *testing.T) {
	t.Parallel()
	for _, lockSafe := range []bool{false, true} {
		path := zktest.UniquePath(t)
		_, err := client(t).Create(ctxOf(t), path, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err, "the put's own transaction, not the directory's, loses its answer")
		proxy := zktest.NewProxy(t, zktest.Servers(t))
		args := []string{"queue", "--servers", proxy.Addr()}
		if lockSafe {
			args = append(args, "--lock-path", path+"-locks")
		}
		proxy.DropNextReply(zktest.OpMulti)
		code, stdout, stderr := runZkr(t, append(args, "put", path, "once")...)
		if lockSafe {
			assert.Equal(t, 0, code, stderr)
		} else {
			assert.Equal(t, exitError, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "once or not at all")
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
		}
		assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti))
		assert.Len(t, zktest.Children(t, client(t), path), 1, "lock-safe %v: put once", lockSafe)
	}
}

// A simple queue (ZooKeeper's own recipe, Curator's
// SimpleDistributedQueue) holds raw bytes: zkr and Go take each other's.
func TestQueue_SimpleKindIsSimpleDistributedQueue(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	simple := []string{"--kind", "simple"}
	zkrQueue(t, simple, "put", path, "from zkr")
	s, err := queue.NewSimple(client(t), path)
	require.NoError(t, err)
	data, err := s.Take(ctxOf(t))
	require.NoError(t, err)
	assert.Equal(t, "from zkr", string(data), "raw bytes, no Curator format")
	require.NoError(t, s.Offer(ctxOf(t), []byte("from go")))
	assert.Equal(t, "qn-0000000001 \"from go\"\n", zkrQueue(t, simple, "ls", path))
	assert.Equal(t, "from go\n", zkrQueue(t, simple, "take", path))
	code, _, stderr := runZkr(t, queueArgs(t, append(simple, "--timeout", "3s"), "take", path)...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Contains(t, stderr, "no item came within --timeout (3s)")
}

// A node not in Curator's format is listed as malformed and left in
// place: take passes over it, warns, and times out.
func TestQueue_MalformedNodeIsListedAndLeftInPlace(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	_, err := client(t).Create(ctxOf(t), path+"/queue-0000000000", []byte("not curator's"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	assert.Contains(t, zkrQueue(t, nil, "ls", path), "queue-0000000000 malformed: queue: malformed queue node")
	code, stdout, stderr := runZkr(t, queueArgs(t, []string{"--timeout", "3s"}, "take", path)...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "malformed queue node left in place")
	data, _, err := client(t).Get(ctxOf(t), path+"/queue-0000000000")
	require.NoError(t, err)
	assert.Equal(t, "not curator's", string(data))
}

func TestQueue_BadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"queue", "put"}, "takes at least 2 argument"},
		{[]string{"queue", "put", "/q"}, "queue put needs ITEM"},
		{[]string{"queue", "take", "/q", "x"}, "queue take takes PATH only"},
		{[]string{"queue", "ls", "/q", "x"}, "queue ls takes PATH only"},
		{[]string{"queue", "pop", "/q"}, "put, take or ls"},
		{[]string{"queue", "put", "q", "x"}, "must start with '/'"},
		{[]string{"queue", "put", "/q/", "x"}, "/q/"},
		{[]string{"queue", "--kind", "stack", "take", "/q"}, "--kind takes queue, priority, delay, id or simple"},
		{[]string{"queue", "--priority", "x", "put", "/q", "a"}, "fits 32 bits"},
		{[]string{"queue", "--priority", "2147483648", "put", "/q", "a"}, "fits 32 bits"},
		{[]string{"queue", "--delay", "-1s", "put", "/q", "a"}, "bad duration"},
		{[]string{"queue", "--priority", "1", "--id", "x", "put", "/q", "a"}, "goes with none of"},
		{[]string{"queue", "--kind", "delay", "--priority", "1", "put", "/q", "a"}, "--kind delay does not go with --priority"},
		{[]string{"queue", "--priority", "1", "take", "/q"}, "are for put"},
		{[]string{"queue", "--id", "", "put", "/q", "a"}, "takes a non-empty ID"},
		{[]string{"queue", "--id", "x", "--multi", "put", "/q", "a", "b"}, "--multi does not go with an id queue"},
		{[]string{"queue", "--kind", "simple", "--lock-path", "/l", "take", "/q"}, "takes no --lock-path"},
		{[]string{"queue", "--multi", "take", "/q"}, "--multi is for put"},
		{[]string{"queue", "--json", "put", "/q", "a"}, "--json is for take and ls"},
		{[]string{"queue", "--timeout", "1s", "ls", "/q"}, "--timeout takes a positive duration, for take"},
		{[]string{"queue", "--timeout", "0s", "take", "/q"}, "--timeout takes a positive duration, for take"},
		{[]string{"queue", "--lock-path", "/q/locks", "take", "/q"}, "must be apart from the queue's"},
		{[]string{"queue", "--lock-path", "l", "take", "/q"}, "lock path"},
		{[]string{"queue", "take", "/q", "--", "true"}, "runs no COMMAND"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}
