package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgs_FlagsAnywhereBeforeTheCommand(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		pos, child []string
		timeout    string
	}{
		{[]string{"/a", "--", "echo", "--timeout"}, []string{"/a"}, []string{"echo", "--timeout"}, ""},
		{[]string{"--timeout", "1s", "/a", "--", "true"}, []string{"/a"}, []string{"true"}, "1s"},
		{[]string{"/a", "--timeout", "1s", "--", "true"}, []string{"/a"}, []string{"true"}, "1s"},
		{[]string{"/a", "/b"}, []string{"/a", "/b"}, nil, ""},
		{[]string{"/a", "--"}, []string{"/a"}, []string{}, ""},
		{[]string{"add", "/a", "-3"}, []string{"add", "/a", "-3"}, nil, ""},
		{[]string{"add", "--json", "/a", "--int", "-3", "--timeout", "1s"}, []string{"add", "/a", "-3"}, nil, "1s"},
		{[]string{"--timeout", "-3", "/a"}, []string{"/a"}, nil, "-3"},
		{[]string{"--json", "-3", "--", "sh"}, []string{"-3"}, []string{"sh"}, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Bool("json", false, "")
		fs.Bool("int", false, "")
		timeout := fs.String("timeout", "", "")
		pos, child, err := parseArgs(fs, tc.args)
		require.NoError(t, err, "%q", tc.args)
		assert.Equal(t, tc.pos, pos, "%q", tc.args)
		assert.Equal(t, tc.child, child, "%q", tc.args)
		assert.Equal(t, tc.timeout, *timeout, "%q", tc.args)
	}
}

func TestSortKey_IsCuratorsAcrossMarkers(t *testing.T) {
	names := []string{
		"_c_00000000-0000-0000-0000-000000000002-__WRIT__0000000003",
		"_c_00000000-0000-0000-0000-000000000009-__READ__0000000001",
		"foreign",
		"_c_00000000-0000-0000-0000-000000000001-__READ__0000000002",
	}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = sortKey(n, []string{readMarker, writeMarker})
	}
	assert.Equal(t, []string{"0000000003", "0000000001", "foreign", "0000000002"}, keys)
	assert.Equal(t, "0000000007", sortKey("x-lock-lock-0000000007", []string{lockMarker}))
}

func TestNewNode_ParsesProtectedNames(t *testing.T) {
	n := newNode("/p/_c_0b1c2d3e-0000-4000-8000-00000000000a-lease-0000000042", "_c_0b1c2d3e-0000-4000-8000-00000000000a-lease-0000000042",
		[]byte("host\x00"), nil, []string{leaseMarker})
	assert.Equal(t, "0b1c2d3e-0000-4000-8000-00000000000a", n.ProtectionID)
	assert.Equal(t, int64(42), n.Sequence)
	assert.Equal(t, "lease", n.Kind)
	assert.Equal(t, "", n.Data, "control characters are not text")
	assert.Equal(t, "686f737400", n.DataHex)
	other := newNode("/p/readme", "readme", nil, nil, []string{lockMarker})
	assert.Equal(t, "other", other.Kind)
	assert.Equal(t, int64(-1), other.Sequence)
	assert.Equal(t, "", other.ProtectionID)
}

func TestRWRoles_ADowngradedReaderKeepsTheWritersPlace(t *testing.T) {
	nodes := []Node{{Kind: "write", Session: "0x1"}, {Kind: "read", Session: "0x1"}, {Kind: "write", Session: "0x2"}, {Kind: "read", Session: "0x3"}}
	var roles []string
	for i := range nodes {
		roles = append(roles, rwRoles(nodes, i))
	}
	assert.Equal(t, []string{"holder", "holder", "waiter", "waiter"}, roles)
}

func TestNewNode_NoCreationTimeIsNoAge(t *testing.T) {
	n := newNode("/a/x", "x", nil, &zk.Stat{Ctime: 0}, nil)
	assert.Equal(t, int64(-1), n.AgeMS)
	assert.Empty(t, n.Created)
	assert.Equal(t, "-", age(n.AgeMS), "not 498764h")
}

func TestVersionString(t *testing.T) {
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "zkr (unknown version)"},
		{"go install @version", &debug.BuildInfo{GoVersion: "go1.24.2", Main: debug.Module{Version: "v1.2.0"}}, "zkr v1.2.0 (go1.24.2)"},
		{"checkout", &debug.BuildInfo{GoVersion: "go1.24.2", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-24T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "zkr (devel) 0123456789ab 2026-11-24T10:00:00Z, modified (go1.24.2)"},
		{"checkout with a stamped version", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261124100000-0123456789ab+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"},
		}}, "zkr v0.0.0-20261124100000-0123456789ab+dirty (go1.26.0)"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.24.2", Main: debug.Module{Version: "(devel)"}}, "zkr (devel) (go1.24.2)"},
	} {
		assert.Equal(t, tc.want, versionString(tc.info), tc.name)
	}
}

// The election's bookkeeping between terms: where a signal goes, what
// --timeout may still end, and the status zkr exits with.
func TestElection_SignalsAndTimeoutBetweenAndDuringTerms(t *testing.T) {
	newElection := func() (*election, *error) {
		var stopped error
		return &election{what: "elect /x", stop: func(cause error) { stopped = cause }}, &stopped
	}

	t.Run("signal while waiting", func(t *testing.T) {
		el, stopped := newElection()
		el.signal(syscall.SIGTERM)
		require.ErrorIs(t, *stopped, errInterrupted, "the wait ends")
		_, err := el.begin()
		require.ErrorIs(t, err, errInterrupted, "a term granted as the signal came runs no COMMAND")
		assert.Equal(t, 143, exitCode(el.outcome(context.Background(), err, false)))
	})
	t.Run("signal during a term", func(t *testing.T) {
		el, stopped := newElection()
		signals, err := el.begin()
		require.NoError(t, err)
		el.signal(syscall.SIGHUP)
		assert.Equal(t, syscall.SIGHUP, <-signals, "passed on")
		assert.NoError(t, *stopped, "SIGHUP does not end zkr")
		el.signal(syscall.SIGINT)
		assert.Equal(t, syscall.SIGINT, <-signals, "passed on")
		require.ErrorIs(t, *stopped, errInterrupted, "no term after this one")
		el.end(exitStatus(3))
		assert.Equal(t, 3, exitCode(el.outcome(context.Background(), errors.New("selector closed"), true)),
			"COMMAND's status, requeue or not")
	})
	t.Run("timeout before the first term", func(t *testing.T) {
		for connected, want := range map[bool]int{true: exitNotAcquired, false: exitUnreachable} {
			el, stopped := newElection()
			el.timeUp(connected, time.Second)
			require.Error(t, *stopped)
			assert.Equal(t, want, exitCode(el.outcome(context.Background(), context.Canceled, false)), "connected %v", connected)
		}
	})
	t.Run("timeout after a term began", func(t *testing.T) {
		el, stopped := newElection()
		_, err := el.begin()
		require.NoError(t, err)
		el.end(nil)
		el.timeUp(true, time.Second)
		assert.NoError(t, *stopped, "--timeout bounds the first wait only")
		el.signal(syscall.SIGTERM)
		assert.Equal(t, 143, exitCode(el.outcome(context.Background(), context.Canceled, true)), "a signal between terms")
	})
}
