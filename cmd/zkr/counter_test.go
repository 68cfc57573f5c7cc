package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// counterArgs is `zkr counter --servers S [flags] VERB PATH [N]`.
func counterArgs(t *testing.T, flags []string, verbPathN ...string) []string {
	return append(append([]string{"counter", "--servers", zktest.Servers(t)}, flags...), verbPathN...)
}

// counter runs zkr counter, requires status 0, and returns its stdout.
func counter(t *testing.T, flags []string, verbPathN ...string) string {
	t.Helper()
	code, stdout, stderr := runZkr(t, counterArgs(t, flags, verbPathN...)...)
	require.Equal(t, 0, code, "%q: %s", verbPathN, stderr)
	assert.Empty(t, stderr)
	return stdout
}

// zkr counts on Curator's DistributedAtomicLong: a missing counter reads 0
// and is not created by it, add and set write the 8-byte value a Go Long
// (and Curator) reads, and a negative N subtracts.
func TestCounter_AddsAndSetsTheValueAGoLongReads(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t) + "/visits"
	ctx := ctxOf(t)
	assert.Equal(t, "0\n", counter(t, nil, "get", path))
	ok, _, err := client(t).Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "get creates nothing")

	assert.Equal(t, "5\n", counter(t, nil, "add", path, "5"))
	assert.Equal(t, "3\n", counter(t, nil, "add", path, "-2"))
	assert.JSONEq(t, `{"path":"`+path+`","value":40,"previous":3,"optimistic_tries":1,"promoted_tries":0}`,
		counter(t, []string{"--json"}, "set", path, "40"))
	l, err := atomicvalue.NewLong(client(t), path)
	require.NoError(t, err)
	r, err := l.Add(ctx, 2)
	require.NoError(t, err)
	require.True(t, r.Succeeded)
	assert.Equal(t, int64(40), r.PreValue, "Go read zkr's value")
	assert.JSONEq(t, `{"path":"`+path+`","value":42}`, counter(t, []string{"--json"}, "get", path))
	data, _, err := client(t).Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 42}, data, "Curator's format")
}

func TestCounter_IntIsFourBytes(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	assert.Equal(t, "-7\n", counter(t, []string{"--int"}, "add", path, "-7"))
	data, _, err := client(t).Get(ctxOf(t), path)
	require.NoError(t, err)
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xf9}, data)

	code, _, stderr := runZkr(t, counterArgs(t, nil, "add", path, "1")...)
	assert.Equal(t, exitError, code, "a 4-byte counter is no Long: %s", stderr)
	assert.Contains(t, stderr, "malformed")
}

// A node that holds no counter is refused, with nothing written, unless
// set --force writes over it.
func TestCounter_NodeThatIsNoCounterIsLeftAloneWithoutForce(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	ctx := ctxOf(t)
	_, err := client(t).Create(ctx, path, []byte("not a number"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	for _, verb := range [][]string{{"get", path}, {"add", path, "1"}, {"set", path, "1"}} {
		code, stdout, stderr := runZkr(t, counterArgs(t, nil, verb...)...)
		assert.Equal(t, exitError, code, "%q: %s", verb, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "counter "+verb[0]+" "+path, "the message names the verb and the path")
		assert.Contains(t, stderr, "malformed")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	}
	data, stat, err := client(t).Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "not a number", string(data))
	assert.Zero(t, stat.Version, "nothing written")

	assert.JSONEq(t, `{"path":"`+path+`","value":9}`, counter(t, []string{"--force", "--json"}, "set", path, "9"))
	assert.Equal(t, "9\n", counter(t, nil, "get", path))
}

// An add whose answer is lost ran once or not at all: zkr says so with
// status 1, and it counted once.
func TestCounter_AddWhoseAnswerIsLostSaysSoAndCountsOnce(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	l, err := atomicvalue.NewLong(client(t), path)
	require.NoError(t, err)
	require.NoError(t, l.ForceSet(ctxOf(t), 10))

	proxy.DropNextReply(zktest.OpSetData)
	code, stdout, stderr := runZkr(t, "counter", "--servers", proxy.Addr(), "add", path, "1")
	assert.Equal(t, exitError, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "once or not at all")
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpSetData))
	r, err := l.Get(ctxOf(t))
	require.NoError(t, err)
	assert.Equal(t, int64(11), r.PreValue, "counted once")
}

func TestCounter_BadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"counter", "get"}, "takes 2 to 3 argument"},
		{[]string{"counter", "add", "/c"}, "counter add needs N"},
		{[]string{"counter", "get", "/c", "5"}, "counter get takes PATH only"},
		{[]string{"counter", "add", "/c", "x"}, "N must be an integer"},
		{[]string{"counter", "add", "/c", "1.5"}, "N must be an integer"},
		{[]string{"counter", "--int", "set", "/c", "2147483648"}, "fits 32 bits"},
		{[]string{"counter", "set", "/c", "9223372036854775808"}, "fits 64 bits"},
		{[]string{"counter", "incr", "/c"}, "get, add or set"},
		{[]string{"counter", "get", "c"}, "must start with '/'"},
		{[]string{"counter", "--force", "add", "/c", "1"}, "--force is for set"},
		{[]string{"counter", "--lock", "/l", "get", "/c"}, "--lock is for add and set"},
		{[]string{"counter", "--lock", "/l/", "add", "/c", "1"}, "/l/"},
		{[]string{"counter", "add", "/c", "1", "--", "true"}, "runs no COMMAND"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}
