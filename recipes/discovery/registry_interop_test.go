package discovery_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// registryPeer is testdata/discoverypeer's RegistryPeer: a registry kept
// by a Java process, with ZooKeeper's own client and Jackson, on the
// server's paths.
type registryPeer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startRegistryPeer starts RegistryPeer on servers, for the registry at
// base, its payloads of class; it is stopped when the test ends.
func startRegistryPeer(t *testing.T, servers, base, mode, class string) *registryPeer {
	t.Helper()
	p := &registryPeer{cmd: exec.Command("java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", javaPeer(t),
		"RegistryPeer", servers, "4000", base, mode, class)}
	p.cmd.Stderr = os.Stderr
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	})
	p.out = bufio.NewScanner(stdout)
	require.True(t, p.out.Scan(), "the peer ended before it was ready")
	require.Equal(t, "ready", p.out.Text())
	return p
}

// do sends a command and returns its answer's lines (up to "end" for a
// list).
func (p *registryPeer) do(t *testing.T, cmd ...string) []string {
	t.Helper()
	_, err := io.WriteString(p.stdin, strings.Join(cmd, " ")+"\n")
	require.NoError(t, err)
	var lines []string
	for p.out.Scan() {
		l := p.out.Text()
		if cmd[0] != "list" {
			return []string{l}
		}
		if l == "end" {
			return lines
		}
		lines = append(lines, l)
	}
	t.Fatalf("the peer ended: %v", p.out.Err())
	return nil
}

// stop ends the peer's input: it closes its session and exits.
func (p *registryPeer) stop(t *testing.T) {
	require.NoError(t, p.stdin.Close())
	require.NoError(t, p.cmd.Wait())
}

// A Java process that keeps a registry as curator-x-discovery does, with
// Jackson, on the same server, reads the instance Go registered, and
// Go's cache and reads see the instance Java registered, byte for byte
// as Jackson wrote it, until Java's session ends.
func TestJavaRegistry_SeesGosInstancesAndGoSeesJavas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a JVM: not a unit test")
	}
	servers := zktest.Servers(t)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	base := zktest.UniquePath(t) + "/services"
	const class = "org.example.InstanceDetails"
	d, err := discovery.New[*InstanceDetails](c, base, discovery.WithPayloadClass(class), discovery.WithEnabledField())
	require.NoError(t, err)
	reg, err := d.Register(ctx, discovery.Instance[*InstanceDetails]{Name: "orders", ID: "go-1", Address: "10.0.0.1",
		Port: intp(8080), Payload: &InstanceDetails{Description: "go", Weight: 2}})
	require.NoError(t, err)
	defer func() { _ = reg.Close(context.Background()) }()
	sc, err := d.Cache("orders")
	require.NoError(t, err)
	require.NoError(t, sc.Start(ctx))
	defer func() { _ = sc.Close(context.Background()) }()
	require.NoError(t, sc.AwaitInitialized(ctx))

	peer := startRegistryPeer(t, servers, base, "full", class)
	assert.Equal(t, []string{"ok go-1 10.0.0.1 8080 " + class + " true"}, peer.do(t, "list", "orders"),
		"Java reads the instance Go registered")

	codec, err := discovery.NewCodec[*InstanceDetails](discovery.WithPayloadClass(class), discovery.WithEnabledField())
	require.NoError(t, err)
	doc, err := codec.Marshal(&discovery.Instance[*InstanceDetails]{Name: "orders", ID: "java-1", Address: "10.0.0.2",
		Port: intp(9090), RegistrationTimeUTC: 1700000000000, Payload: &InstanceDetails{Description: "java", Weight: 3}})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "java-1.json")
	require.NoError(t, os.WriteFile(file, doc, 0o644))
	assert.Equal(t, []string{"ok " + base + "/orders/java-1"}, peer.do(t, "register", file))

	require.Eventually(t, func() bool { return len(sc.Instances()) == 2 }, 10*time.Second, 10*time.Millisecond,
		"Go's cache sees the instance Java registered")
	java, err := d.Instance(ctx, "orders", "java-1")
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.2", java.Address)
	assert.Equal(t, 9090, *java.Port)
	assert.Equal(t, &InstanceDetails{Description: "java", Weight: 3}, java.Payload)
	written, _, err := c.Get(ctx, base+"/orders/java-1")
	require.NoError(t, err)
	again, err := codec.Marshal(&java)
	require.NoError(t, err)
	assert.Equal(t, string(written), string(again), "Go writes back what Jackson wrote, byte for byte")
	assert.ElementsMatch(t, []string{"ok go-1 10.0.0.1 8080 " + class + " true", "ok java-1 10.0.0.2 9090 " + class + " true"},
		peer.do(t, "list", "orders"))

	peer.stop(t)
	require.Eventually(t, func() bool { return len(sc.Instances()) == 1 }, 10*time.Second, 10*time.Millisecond,
		"the instance goes with Java's session")
	assert.Equal(t, "go-1", sc.Instances()[0].ID)
}
