package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// nodeCmd runs `zkr VERB --servers S ARGS...`, requires status 0 and an
// empty stderr, and returns stdout.
func nodeCmd(t *testing.T, verb string, args ...string) string {
	t.Helper()
	code, stdout, stderr := runZkr(t, append([]string{verb, "--servers", zktest.Servers(t)}, args...)...)
	require.Equal(t, 0, code, "%s %q: %s", verb, args, stderr)
	assert.Empty(t, stderr)
	return stdout
}

// nodeFails runs `zkr VERB --servers S ARGS...` and checks that it exits
// with code, one line on stderr that says says, nothing on stdout.
func nodeFails(t *testing.T, code int, says, verb string, args ...string) {
	t.Helper()
	got, stdout, stderr := runZkr(t, append([]string{verb, "--servers", zktest.Servers(t)}, args...)...)
	assert.Equal(t, code, got, "%s %q: %s", verb, args, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	assert.Contains(t, stderr, says)
}

// readNode reads a node with the test's own client.
func readNode(t *testing.T, path string) (data string, version int32) {
	t.Helper()
	b, stat, err := client(t).Get(ctxOf(t), path)
	require.NoError(t, err)
	return string(b), stat.Version
}

func TestNodes_CreateThenGetSetAndStatAsZkCliDoes(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t) + "/app/config"
	assert.Equal(t, path+"\n", nodeCmd(t, "create", "--parents", path, "v1"))
	assert.Equal(t, "v1\n", nodeCmd(t, "get", path))

	assert.Empty(t, nodeCmd(t, "set", "--version", "0", path, "v2"))
	data, version := readNode(t, path)
	assert.Equal(t, "v2", data)
	assert.Equal(t, int32(1), version)

	nodeFails(t, exitError, "version", "set", "--version", "0", path, "v3")
	data, _ = readNode(t, path)
	assert.Equal(t, "v2", data, "a set at another version writes nothing")

	var got struct {
		Path    string   `json:"path"`
		Data    *string  `json:"data"`
		DataB64 *string  `json:"data_b64"`
		Stat    statJSON `json:"stat"`
	}
	require.NoError(t, json.Unmarshal([]byte(nodeCmd(t, "get", "--json", path)), &got))
	assert.Equal(t, path, got.Path)
	require.NotNil(t, got.Data)
	assert.Equal(t, "v2", *got.Data)
	assert.Nil(t, got.DataB64)
	assert.Equal(t, int32(1), got.Stat.Version)
	assert.Equal(t, int32(2), got.Stat.DataLength)
	assert.Equal(t, "0x0", got.Stat.EphemeralOwner)

	stat := nodeCmd(t, "stat", path)
	for _, want := range []string{"cZxid", "ctime", "mZxid", "mtime", "pZxid", "cversion", "dataVersion    = 1\n", "aclVersion",
		"ephemeralOwner = 0x0\n", "dataLength     = 2\n", "numChildren    = 0\n"} {
		assert.Contains(t, stat, want)
	}
	nodeFails(t, exitError, "already exists", "create", path)
	nodeFails(t, exitError, "does not exist", "get", path+"/none")
	nodeFails(t, exitError, "does not exist", "stat", path+"/none")
	nodeFails(t, exitError, "does not exist", "set", path+"/none", "x")
	nodeFails(t, exitError, "does not exist", "create", zktest.UniquePath(t)+"/no/parent")
}

// Binary data goes in through stdin as it is, and comes out of get --json
// in base64.
func TestNodes_SetWithoutDataWritesStdinAsItIs(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	_, err := client(t).Create(ctxOf(t), path, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	raw := "\xff\x00line\n"
	p := startZkrStdin(t, nil, strings.NewReader(raw), "set", "--servers", zktest.Servers(t), path)
	require.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
	data, _ := readNode(t, path)
	assert.Equal(t, raw, data)
	assert.Contains(t, nodeCmd(t, "get", "--json", path), `"data_b64":"/wBsaW5lCg=="`)
}

// The modes zkr creates, told apart by what the server does with them (it
// reaps containers and expired TTL nodes every second here): a container
// goes once its last child is gone, a TTL node once its TTL has passed, a
// persistent node stays.
func TestNodes_CreateMakesSequentialContainerAndTTLNodes(t *testing.T) {
	t.Parallel()
	dir := zktest.UniquePath(t)
	_, err := client(t).Create(ctxOf(t), dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	seq := strings.TrimSuffix(nodeCmd(t, "create", "--sequential", dir+"/"), "\n")
	assert.Regexp(t, "^"+dir+"/[0-9]{10}$", seq, "the name left to the number")
	seq = strings.TrimSuffix(nodeCmd(t, "create", "--sequential", dir+"/job-"), "\n")
	assert.Regexp(t, "^"+dir+"/job-[0-9]{10}$", seq)

	nodeCmd(t, "create", "--container", dir+"/box")
	nodeCmd(t, "create", dir+"/box/item")
	nodeCmd(t, "rm", dir+"/box/item")
	nodeCmd(t, "create", "--ttl", "1s", dir+"/lease")
	var created struct{ Path string }
	require.NoError(t, json.Unmarshal([]byte(nodeCmd(t, "create", "--json", "--ttl", "1s", "--sequential", dir+"/t-")), &created))
	assert.Regexp(t, "^"+dir+"/t-[0-9]{10}$", created.Path)
	nodeCmd(t, "create", dir+"/stays")
	gone := func(p string) bool {
		ok, _, err := client(t).Exists(ctxOf(t), p)
		return err == nil && !ok
	}
	for _, p := range []string{dir + "/box", dir + "/lease", created.Path} {
		assert.Eventually(t, func() bool { return gone(p) }, 30*time.Second, 100*time.Millisecond, "%s reaped", p)
	}
	assert.False(t, gone(dir+"/stays"), "a persistent node stays")
}

func TestNodes_LsListsChildrenAndWithRTheSubtree(t *testing.T) {
	t.Parallel()
	dir := zktest.UniquePath(t)
	for _, p := range []string{dir + "/b", dir + "/a/c", dir + "/a/d"} {
		_, err := client(t).Create(ctxOf(t), p, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	assert.Equal(t, "a\nb\n", nodeCmd(t, "ls", dir))
	assert.Equal(t, strings.Join([]string{dir, dir + "/a", dir + "/a/c", dir + "/a/d", dir + "/b"}, "\n")+"\n", nodeCmd(t, "ls", "-R", dir))
	assert.JSONEq(t, `{"path":"`+dir+`","children":["a","b"]}`, nodeCmd(t, "ls", "--json", dir))
	assert.JSONEq(t, `{"path":"`+dir+`/b","children":[]}`, nodeCmd(t, "ls", "--json", dir+"/b"))
	assert.JSONEq(t, `{"path":"`+dir+`/a","nodes":["`+dir+`/a","`+dir+`/a/c","`+dir+`/a/d"]}`, nodeCmd(t, "ls", "--recursive", "--json", dir+"/a"))
	nodeFails(t, exitError, "does not exist", "ls", "-R", dir+"/none")
}

// rm deletes a subtree only when asked with --recursive, and a node at a
// version only at that version.
func TestNodes_RmDeletesASubtreeOnlyWithRecursive(t *testing.T) {
	t.Parallel()
	dir := zktest.UniquePath(t)
	// Persistent nodes all: a container parent would be reaped as rm
	// empties it.
	for _, p := range []string{dir, dir + "/a", dir + "/a/b", dir + "/a/b/c", dir + "/a/d"} {
		_, err := client(t).Create(ctxOf(t), p, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	exists := func(p string) bool {
		ok, _, err := client(t).Exists(ctxOf(t), p)
		require.NoError(t, err)
		return ok
	}
	nodeFails(t, exitError, "--recursive", "rm", dir+"/a")
	assert.True(t, exists(dir+"/a/b/c"), "nothing deleted")

	assert.JSONEq(t, `{"path":"`+dir+`/a","deleted":4}`, nodeCmd(t, "rm", "-R", "--json", dir+"/a"))
	assert.False(t, exists(dir+"/a"))
	nodeFails(t, exitError, "does not exist", "rm", dir+"/a")

	_, err := client(t).Set(ctxOf(t), dir, []byte("x"), -1)
	require.NoError(t, err)
	nodeFails(t, exitError, "version", "rm", "--version", "0", dir)
	assert.True(t, exists(dir), "a delete at another version deletes nothing")
	assert.Empty(t, nodeCmd(t, "rm", "--version", "1", dir))
	assert.False(t, exists(dir))
}

// rm refuses the root and the server's own tree before it connects (the
// server here is never reachable), as it refuses bad flags.
func TestNodes_RmRefusesTheRootAndZookeeperBeforeConnecting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"rm", "-R", "/"}, "refusing to delete /"},
		{[]string{"rm", "--namespace", "app", "--recursive", "/"}, "refusing to delete /"},
		{[]string{"rm", "/zookeeper"}, "/zookeeper is the server's own"},
		{[]string{"rm", "-R", "/zookeeper/quota"}, "/zookeeper is the server's own"},
		{[]string{"rm", "--servers", "127.0.0.1:1/zookeeper", "/config"}, "/zookeeper is the server's own"},
		{[]string{"rm", "-R", "--version", "3", "/a"}, "not with --recursive"},
		{[]string{"set", "--version", "-2", "/a", "x"}, "--version"},
		{[]string{"create", "--container", "--sequential", "/a"}, "--container"},
		{[]string{"create", "--ttl", "-1s", "/a"}, "--ttl"},
		{[]string{"get", "a"}, "path"},
		{[]string{"ls", "/a", "/b"}, "ls takes 1 argument(s), got 2"},
		{[]string{"create", "/a", "x", "y"}, "create takes 1 to 2 argument(s), got 3"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}

// A node command that finds no server exits 3, as the recipes' commands do.
func TestNodes_UnreachableServerExitsWithStatus3(t *testing.T) {
	t.Parallel()
	for _, verb := range [][]string{{"get", "/a"}, {"set", "/a", "x"}, {"create", "/a"}, {"ls", "-R", "/a"}, {"stat", "/a"}, {"rm", "-R", "/a"}} {
		args := append([]string{verb[0], "--servers", "127.0.0.1:1", "--connect-timeout", "300ms"}, verb[1:]...)
		code, stdout, stderr := runZkr(t, args...)
		assert.Equal(t, exitUnreachable, code, "%q: %s", verb, stderr)
		assert.Empty(t, stdout)
		assert.True(t, strings.HasPrefix(stderr, "zkr: ZooKeeper unreachable: "), stderr)
	}
}

// go-zookeeper names the answer of a server without TTL nodes "unknown
// error: -6"; zkr says what it likely means.
func TestNodes_CreateWithTTLSaysWhatAServerWithoutThemNeeds(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t, zktesting.WithoutTTL())
	code, stdout, stderr := runZkr(t, "create", "--servers", server.Addr(), "--ttl", "1m", "/lease")
	assert.Equal(t, exitError, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "extendedTypesEnabled=true")
}
