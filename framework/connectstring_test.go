package framework_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestParseConnectString_ReadsWhatZooKeeperReads(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		servers []string
		chroot  string
	}{
		{"one server", "zk1:2181", []string{"zk1:2181"}, ""},
		{"several with a chroot", "zk1:2181,zk2:2182/app", []string{"zk1:2181", "zk2:2182"}, "/app"},
		{"a deeper chroot", "zk1:2181/kafka/prod", []string{"zk1:2181"}, "/kafka/prod"},
		{"no port means 2181", "zk1,zk2:2888", []string{"zk1:2181", "zk2:2888"}, ""},
		{"no port and a chroot", "zk1/app", []string{"zk1:2181"}, "/app"},
		{"IPv6 with a port", "[::1]:2181,[fe80::1]:2182/app", []string{"[::1]:2181", "[fe80::1]:2182"}, "/app"},
		{"IPv6 without a port", "[::1]", []string{"[::1]:2181"}, ""},
		{"the root chroot is none", "zk1:2181/", []string{"zk1:2181"}, ""},
		{"empty parts and spaces are skipped", " zk1:2181, ,zk2:2181,", []string{"zk1:2181", "zk2:2181"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, chroot, err := framework.ParseConnectString(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.servers, servers)
			assert.Equal(t, tt.chroot, chroot)
		})
	}
}

func TestParseConnectString_RefusesWhatZooKeeperCannotUse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		also error // wrapped besides ErrInvalidAddress
	}{
		{"empty", "", nil},
		{"only commas", ",,", nil},
		{"only a chroot", "/app", nil},
		{"bad port", "zk1:x", nil},
		{"port out of range", "zk1:65536", nil},
		{"no host", ":2181", nil},
		{"unbracketed IPv6", "::1", nil},
		{"unclosed bracket", "[::1", nil},
		{"chroot ending in a slash", "zk1:2181/app/", framework.ErrInvalidPath},
		{"chroot with an empty segment", "zk1:2181/a//b", framework.ErrInvalidPath},
		{"chroot before the last server", "zk1:2181/app,zk2:2181", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := framework.ParseConnectString(tt.in)
			require.ErrorIs(t, err, framework.ErrInvalidAddress)
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
		})
	}
}

// A connect string split at its commas, as strings.Split leaves it, is the
// connect string.
func TestNew_TakesTheConnectStringWholeOrSplit(t *testing.T) {
	quiet := framework.WithLogger(slog.New(slog.DiscardHandler))
	for _, servers := range [][]string{{"127.0.0.1:2181,127.0.0.1:2182/app"}, strings.Split("127.0.0.1:2181,127.0.0.1:2182/app", ",")} {
		c, err := framework.New(servers, quiet)
		require.NoError(t, err, "%q", servers)
		assert.Equal(t, "/app", c.Namespace(), "%q", servers)
		c.Close()
	}
	c, err := framework.New([]string{"127.0.0.1/app"}, quiet, framework.WithNamespace("/app"))
	require.NoError(t, err, "a chroot and the same namespace agree")
	c.Close()
}

func TestNew_ChrootAndAnotherNamespaceConflict(t *testing.T) {
	_, err := framework.New([]string{"127.0.0.1:2181/app"}, framework.WithNamespace("/other"))
	require.ErrorIs(t, err, framework.ErrNamespaceConflict)
	require.ErrorIs(t, err, framework.ErrInvalidOption)
	assert.Contains(t, err.Error(), "/app")
	assert.Contains(t, err.Error(), "/other")
}

// The chroot of a Curator connect string is the client's namespace: what
// it creates lies under the chroot on the server.
func TestConnect_ChrootIsTheNamespace(t *testing.T) {
	servers := zktest.Servers(t)
	root := zktest.UniquePath(t)
	chrooted := connect(t, servers+root)
	plain := connect(t, servers)
	ctx := testContext(t)

	_, err := chrooted.Create(ctx, "/x", []byte("v"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	data, _, err := plain.Get(ctx, root+"/x")
	require.NoError(t, err)
	assert.Equal(t, []byte("v"), data)
}

// Read a Curator connect string: servers, and the chroot that becomes the
// client's namespace.
func ExampleParseConnectString() {
	servers, chroot, err := framework.ParseConnectString("zk1:2181,zk2,[::1]:2182/kafka")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(servers, chroot)
	// Output: [zk1:2181 zk2:2181 [::1]:2182] /kafka
}
