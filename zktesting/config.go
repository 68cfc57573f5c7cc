package zktesting

import (
	"fmt"
	"strings"
	"time"
)

// peer is one member of an ensemble as every member's configuration names it.
type peer struct {
	id       int // myid, from 1
	quorum   int // port followers connect to the leader on
	election int // port of leader election
	client   int // client port, named in a dynamic configuration (WithReconfig)
}

// line is the peer's server.N line; with a client port, as a dynamic
// configuration names it.
func (p peer) line() string {
	l := fmt.Sprintf("server.%d=127.0.0.1:%d:%d", p.id, p.quorum, p.election)
	if p.client != 0 {
		l += fmt.Sprintf(":participant;127.0.0.1:%d", p.client)
	}
	return l
}

// serverConfig is what zoo.cfg says about one server.
type serverConfig struct {
	tick       time.Duration
	dataDir    string
	clientPort int
	peers      []peer // empty for a standalone server
	noTTL      bool   // extendedTypesEnabled=false
	maxSession time.Duration
	syncLimit  int        // in ticks
	tls        *tlsConfig // nil: no TLS port
	// reconfig: the peers go to a dynamic configuration file, which the
	// server rewrites as it is reconfigured (WithReconfig).
	reconfig    bool
	dynamicFile string // with reconfig: the file zoo.cfg names
}

// render returns the content of zoo.cfg.
//
// Keys ZooKeeper does not know (forceSync, extendedTypesEnabled) become
// zookeeper.* system properties, which is how the server reads them.
func (c serverConfig) render() string {
	tickMs := c.tick.Milliseconds()
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", tickMs)
	// initLimit is generous (10 s to sync): JVMs starting together on two
	// cores are slow. syncLimit is the options' (3 s behind by default).
	fmt.Fprintf(&b, "initLimit=%d\nsyncLimit=%d\n", max(10, 10_000/tickMs), c.syncLimit)
	fmt.Fprintf(&b, "dataDir=%s\n", c.dataDir)
	fmt.Fprintf(&b, "clientPort=%d\nclientPortAddress=127.0.0.1\n", c.clientPort)
	fmt.Fprintf(&b, "minSessionTimeout=%d\nmaxSessionTimeout=%d\n", 2*tickMs, c.maxSession.Milliseconds())
	b.WriteString("maxClientCnxns=0\n")
	b.WriteString("admin.enableServer=false\n")
	b.WriteString("4lw.commands.whitelist=*\n")
	fmt.Fprintf(&b, "extendedTypesEnabled=%t\n", !c.noTTL)
	b.WriteString("forceSync=no\n")
	b.WriteString(c.tls.render())
	if c.reconfig {
		b.WriteString("reconfigEnabled=true\nstandaloneEnabled=false\n")
		fmt.Fprintf(&b, "dynamicConfigFile=%s\n", c.dynamicFile)
		return b.String()
	}
	for _, p := range c.peers {
		fmt.Fprintf(&b, "%s\n", p.line())
	}
	return b.String()
}

// renderDynamic returns the content of a dynamic configuration file.
func (c serverConfig) renderDynamic() string {
	var b strings.Builder
	for _, p := range c.peers {
		fmt.Fprintf(&b, "%s\n", p.line())
	}
	return b.String()
}
