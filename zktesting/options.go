package zktesting

import (
	"fmt"
	"log/slog"
	"time"
)

// Option configures Start and StartEnsemble.
type Option func(*options)

type options struct {
	tick       time.Duration
	dir        string
	logger     *slog.Logger
	jar        string
	javaOpts   []string
	tls        *TLS // nil: no TLS port (WithTLS)
	noTTL      bool // extendedTypesEnabled=false
	port       int
	maxSession time.Duration
	syncLimit  int  // 0: the default, syncLimitOf
	peerFaults bool // an ensemble's members reach each other through proxies
	saslUsers  map[string]string
	reconfig   bool // an ensemble can be reconfigured (WithReconfig)
}

// syncLimitOf returns the syncLimit in ticks: the one set, or by default
// 3 s worth, at least 5, since JVMs starting together on a loaded machine
// are slow.
func (o options) syncLimitOf() int {
	if o.syncLimit > 0 {
		return o.syncLimit
	}
	return max(5, int(3*time.Second/max(o.tick, time.Millisecond)))
}

// WithSyncLimit sets syncLimit, in ticks: how far a follower may fall
// behind its leader, and so how long a follower cut off from its leader
// goes on answering its clients (about syncLimit × tickTime) before it
// drops them. A test of what a client of a follower sees in a partition
// wants it short, about a second. It must be at least 1. The default is
// 3 s worth of ticks, at least 5 (15 at the default tick).
func WithSyncLimit(ticks int) Option {
	return func(o *options) {
		o.syncLimit = ticks
		if ticks <= 0 {
			o.syncLimit = -1 // refused by newOptions
		}
	}
}

// WithPeerFaults makes the members of an ensemble reach each other through
// proxies on loopback, one for each member's quorum and election links to
// each other member (each member's zoo.cfg names the proxies for the
// others), so that Ensemble.Isolate can cut one member off from the others
// while its clients still reach it. A standalone server ignores it. The
// default connects the members directly.
func WithPeerFaults() Option {
	return func(o *options) { o.peerFaults = true }
}

// WithReconfig starts an ensemble that can be reconfigured, as ZooKeeper
// 3.5 and later do it: reconfigEnabled=true, standaloneEnabled=false (an
// ensemble of one runs as a quorum of one, which can grow), the members
// in a dynamic configuration file with their client addresses
// (server.N=127.0.0.1:quorum:election:participant;127.0.0.1:client), and
// a superuser digest with which Ensemble.AddMembers and RemoveMembers
// run the reconfig (ZooKeeper lets only a superuser reconfigure; ACLs
// are enforced as usual for everyone else). /zookeeper/config then names
// every member's client address, which is what a client that follows the
// ensemble reads. The members reach each other directly: WithPeerFaults
// is ignored. A standalone server ignores it. The default ensemble
// cannot be reconfigured.
func WithReconfig() Option {
	return func(o *options) { o.reconfig = true }
}

// WithTickTime sets ZooKeeper's tickTime, its unit of time: the shortest
// session a client may negotiate is two ticks. It must be at least 1 ms and
// is rounded down to whole milliseconds. The default is 200 ms.
func WithTickTime(d time.Duration) Option {
	return func(o *options) { o.tick = d }
}

// WithMaxSessionTimeout sets the longest session timeout the server grants
// (maxSessionTimeout): a client asking for more gets this. The default is
// 60 s, or 20 ticks if that is longer; ZooKeeper's own default is 20 ticks,
// 40 s with its 2 s tick, so a client asking for 60 s gets 40 s from a
// server as shipped. It must be at least two ticks.
func WithMaxSessionTimeout(d time.Duration) Option {
	return func(o *options) { o.maxSession = d }
}

// WithDir keeps the server's configuration, data and log in dir (created if
// missing) instead of a new temporary directory; Close then leaves dir in
// place. An ensemble keeps member i in dir/member<i+1>. The default is a
// temporary directory that Close removes.
func WithDir(dir string) Option {
	return func(o *options) { o.dir = dir }
}

// WithLogger sets the logger for starts and stops (not the server's own log,
// which goes to a file in the server's directory). The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithJar names the ZooKeeper server jar to run. The default is the
// environment variable ZOOKEEPER_JAR if set, else Debian's
// /usr/share/java/zookeeper.jar.
func WithJar(path string) Option {
	return func(o *options) { o.jar = path }
}

// WithJavaOpts adds JVM options after the defaults (-Xms64m -Xmx512m
// -XX:+UseSerialGC and the server's system properties), so they override
// them. The default adds none.
func WithJavaOpts(opts ...string) Option {
	return func(o *options) { o.javaOpts = append(o.javaOpts, opts...) }
}

// WithoutTTL starts the server with extendedTypesEnabled=false, as
// ZooKeeper ships: it refuses TTL nodes (and the server ids of its sessions
// may use the whole top byte). For tests of what a recipe does on such a
// server. The default enables TTL nodes.
func WithoutTTL() Option {
	return func(o *options) { o.noTTL = true }
}

// WithPort makes a standalone server listen on 127.0.0.1:port instead of a
// free port the kernel picks; StartEnsemble rejects it. Start fails with
// ErrPortInUse when another process listens there. The default is 0, a free
// port.
func WithPort(port int) Option {
	return func(o *options) { o.port = port }
}

func newOptions(opts []Option) (options, error) {
	o := options{tick: 200 * time.Millisecond, logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.port < 0 || o.port > 65535 {
		return o, fmt.Errorf("%w: %d", ErrInvalidPort, o.port)
	}
	if o.tick < time.Millisecond {
		return o, fmt.Errorf("%w: %v", ErrInvalidTickTime, o.tick)
	}
	if o.syncLimit < 0 {
		return o, ErrInvalidSyncLimit
	}
	if o.maxSession == 0 {
		o.maxSession = max(60*time.Second, 20*o.tick)
	}
	if o.maxSession < 2*o.tick {
		return o, fmt.Errorf("%w: %v is under two ticks (%v)", ErrInvalidSessionTimeout, o.maxSession, 2*o.tick)
	}
	return o, nil
}
