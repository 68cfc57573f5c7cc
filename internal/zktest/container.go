package zktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// defaultImage is the public ZooKeeper image; ZK_IMAGE names another, such
// as the one .ci/zk-image.sh builds without a registry.
const defaultImage = "zookeeper:3.8"

// readyLine is logged by the server's container manager, the last service it
// starts: earlier lines come before the server accepts sessions.
const readyLine = "Using checkIntervalMs="

// startContainer runs a ZooKeeper container for the shared server and
// returns its address and how to terminate it. The container shares the
// host's network (a bridge would need a network this machine may not have,
// and private addresses tests must not target) and listens on a free
// loopback port. Ryuk, the reaper, is off: its image cannot be pulled here,
// and Main terminates the container.
func startContainer(ctx context.Context) (string, func() error, error) {
	setenvDefault("TESTCONTAINERS_RYUK_DISABLED", "true")
	// Inside a container (/.dockerenv) testcontainers would take the default
	// gateway for the Docker host; with host networking it is loopback.
	setenvDefault("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithDefaultBridgeNetwork("host"))
	if err != nil {
		return "", nil, fmt.Errorf("docker provider: %w", err)
	}
	image := os.Getenv("ZK_IMAGE")
	if image == "" {
		image = defaultImage
	}
	req := testcontainers.ContainerRequest{
		Image:              image,
		Env:                containerEnv(port),
		HostConfigModifier: func(hc *container.HostConfig) { hc.NetworkMode = "host" },
		WaitingFor:         wait.ForLog(readyLine).WithStartupTimeout(90 * time.Second),
	}
	c, err := provider.RunContainer(ctx, req)
	stop := func() error {
		return errors.Join(testcontainers.TerminateContainer(c), provider.Close())
	}
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("run container %s: %w", image, err), stop())
	}
	host, err := c.Host(ctx)
	if err == nil && !isLoopback(host) {
		err = fmt.Errorf("container host %q is not a loopback address; set TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1", host)
	}
	if err != nil {
		return "", nil, errors.Join(err, stop())
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), stop, nil
}

// containerEnv configures the container's zoo.cfg like zkserver's, through
// the variables of the official image's entrypoint, which the image of
// .ci/zk-image.sh reads too. The quorum ports of the server line are never
// bound: one server runs standalone.
func containerEnv(port int) map[string]string {
	extra := []string{
		"clientPort=" + strconv.Itoa(port),
		"clientPortAddress=127.0.0.1",
		"minSessionTimeout=400",
		"maxSessionTimeout=60000",
		"extendedTypesEnabled=true",
		"forceSync=no",
	}
	return map[string]string{
		"ZOO_TICK_TIME":              "200",
		"ZOO_MAX_CLIENT_CNXNS":       "0",
		"ZOO_ADMINSERVER_ENABLED":    "false",
		"ZOO_4LW_COMMANDS_WHITELIST": "*",
		"ZOO_SERVERS":                fmt.Sprintf("server.1=127.0.0.1:2888:3888;127.0.0.1:%d", port),
		"ZOO_CFG_EXTRA":              strings.Join(extra, " "),
		"JVMFLAGS":                   "-Xmx512m -Dznode.container.checkIntervalMs=1000",
	}
}

// setenvDefault sets the environment variable key to value unless it is set.
func setenvDefault(key, value string) {
	if _, ok := os.LookupEnv(key); !ok {
		_ = os.Setenv(key, value)
	}
}

// freePort returns a port the kernel handed out free on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// isLoopback tells whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
