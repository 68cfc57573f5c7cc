package framework

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// configPath is where ZooKeeper 3.5 and later keep the ensemble's
// configuration. It lies outside any chroot: ZooKeeper's own client sends
// getConfig to this path without its chroot, and a chroot's prefix would
// name a node that does not exist. The client applies a connect string's
// chroot itself, as its namespace (see New), so it reads this server path
// as it is, never prefixed, and the namespace is left as it was.
const configPath = "/zookeeper/config"

// trackerPause is how long the tracker waits after a read that failed
// (the retry policy gave up) before it tries again.
const trackerPause = time.Second

// Config returns the ensemble's configuration (its members with their
// ids, roles and addresses, and the config's version) as the server the
// client is connected to knows it, from /zookeeper/config. A server
// before 3.5 fails it with an error wrapping zk.ErrNoNode; a standalone
// server, which keeps no configuration, returns an empty one. Data that
// cannot be read as a configuration fails it with an error wrapping
// ErrInvalidEnsembleConfig. The namespace does not apply.
func (c *Client) Config(ctx context.Context) (EnsembleConfig, error) {
	data, err := retry(ctx, c, "config", configPath, func(conn *zk.Conn, _ *Session) ([]byte, error) {
		data, _, err := conn.Get(configPath)
		return data, err
	})
	if err != nil {
		return EnsembleConfig{}, err
	}
	cfg, err := parseEnsembleConfig(data)
	if err != nil {
		return EnsembleConfig{}, &OpError{Op: "config", Path: configPath, Err: err}
	}
	return cfg, nil
}

// trackEnsemble keeps the client's server list on the ensemble's
// configuration: it reads /zookeeper/config with a one-shot watch of the
// client's watch table (so a reconnect sets it again, a new session ends
// it, which makes the loop read again, and Close ends it), hands each new
// list of client addresses to the host provider, and reads again when the
// watch fires. It ends when the client is closed.
func (c *Client) trackEnsemble() {
	for c.life.Err() == nil {
		c.followConfig().wait(c.life)
	}
}

// nextRead says when the tracker reads the configuration again: when the
// watch fires, the session ends, or after a pause; the others are nil.
type nextRead struct {
	watch <-chan zk.Event
	lost  <-chan struct{}
	after time.Duration
}

// wait returns when it is time to read again, or life has ended.
func (n nextRead) wait(life context.Context) {
	var after <-chan time.Time
	if n.after > 0 {
		t := time.NewTimer(n.after)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-n.watch:
	case <-n.lost:
	case <-after:
	case <-life.Done():
	}
}

// followConfig reads the configuration once, applies it, and says when to
// read again: at the watch's event, or at the end of the session on a
// server that keeps no configuration, or after a pause that follows a
// failure (the retry policy gave up; the loop goes on until Close).
func (c *Client) followConfig() nextRead {
	_, session, err := c.connection(c.life)
	if err != nil {
		return nextRead{after: trackerPause}
	}
	switch standalone, asked := c.ensemble.standalone(c.life, c.carrier.Servers, c.carrier.Servers.Current()); {
	case standalone:
		// A standalone server cannot be reconfigured: nothing to follow
		// until the next session, perhaps on another server.
		return nextRead{lost: session.Lost()}
	case !asked && !c.IsConnected():
		// The link went down under the question: ask again once it is
		// back, rather than send reads that wait for it.
		return nextRead{after: trackerPause}
	}
	type read struct {
		data  []byte
		watch <-chan zk.Event
		from  string
	}
	r, err := retry(c.life, c, "config", configPath, func(conn *zk.Conn, _ *Session) (read, error) {
		from := c.carrier.Servers.Current()
		nd, err := c.getW(conn, configPath)
		return read{data: nd.data, watch: nd.watch, from: from}, err
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		c.log.Debug("ensemble tracking: the server keeps no configuration (before 3.5)")
		return nextRead{lost: session.Lost()}
	case err != nil:
		c.log.Debug("ensemble tracking: reading the configuration failed; trying again", "err", err)
		return nextRead{after: trackerPause}
	}
	c.applyConfig(r.data, r.from)
	return nextRead{watch: r.watch}
}

// applyConfig hands the client addresses of a configuration read from the
// server at from to the host provider. A configuration that is empty (a
// standalone server's), static (reconfigEnabled=false: its lines name no
// client port), unreadable, older than one applied, or names none of the
// addresses the client reaches the ensemble at, leaves the list as it is;
// the unreadable and the one that names no client address (of a
// reconfigured ensemble) are logged at warn.
func (c *Client) applyConfig(data []byte, from string) {
	if len(bytes.TrimSpace(data)) == 0 {
		c.log.Debug("ensemble tracking: the configuration is empty; keeping the server list", "server", from)
		return
	}
	cfg, err := parseEnsembleConfig(data)
	if err != nil {
		c.log.Warn("ensemble tracking: unreadable configuration; keeping the server list", "server", from, "err", err)
		return
	}
	addrs := cfg.clientAddrs()
	if len(addrs) == 0 && cfg.Version == 0 {
		// A static configuration (reconfigEnabled=false, as ZooKeeper
		// ships): its lines name no client port. Nothing to follow.
		c.log.Debug("ensemble tracking: the static configuration names no client address; keeping the server list", "server", from)
		return
	}
	if len(addrs) == 0 {
		c.log.Warn("ensemble tracking: the configuration names no client address; keeping the server list",
			"server", from, "version", cfg.Version)
		return
	}
	resolved := &hostProvider{}
	if err := resolved.Init(addrs); err != nil {
		c.log.Warn("ensemble tracking: no address of the configuration resolves; keeping the server list",
			"server", from, "err", err)
		return
	}
	switch changed, why := c.ensemble.follow(cfg.Version, resolved.servers, from); {
	case changed:
		c.log.Info("ensemble tracking: following the ensemble's configuration", "version", cfg.Version, "servers", addrs)
	case why != "":
		c.log.Info("ensemble tracking: keeping the server list: "+why, "version", cfg.Version, "servers", addrs)
	}
}

// ensembleHosts is the server list the client dials: the connect
// string's, until the ensemble's configuration replaces it.
type ensembleHosts struct {
	mu       sync.Mutex
	servers  []string      // resolved; nil: the connect string's
	version  int64         // of the configuration applied
	provider *hostProvider // of the current go-zookeeper connection
	modes    map[string]string
}

// newProvider returns the host provider of a new connection, with the
// followed list if there is one (which go-zookeeper's Init then keeps).
func (h *ensembleHosts) newProvider() *hostProvider {
	h.mu.Lock()
	defer h.mu.Unlock()
	hp := &hostProvider{}
	if h.servers != nil {
		hp.update(h.servers)
	}
	h.provider = hp
	return hp
}

// follow makes servers the list to dial, unless it is the list already,
// or its version is older than the one applied (a lagging server's), or
// it names neither the server it was read from nor any of the list in
// use: then the client reaches the ensemble at addresses its
// configuration does not know (a proxy, NAT, a load balancer), and the
// configuration's own addresses might not be reachable. why says why a
// new list was refused, "" when it is the list already.
func (h *ensembleHosts) follow(version int64, servers []string, from string) (changed bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	inUse := h.servers
	if inUse == nil && h.provider != nil {
		inUse = h.provider.list()
	}
	switch {
	case version < h.version:
		return false, "older than the configuration applied"
	case sameServers(servers, inUse):
		h.servers, h.version = inUse, version
		return false, ""
	case !slices.Contains(servers, from) && !slices.ContainsFunc(inUse, func(s string) bool { return slices.Contains(servers, s) }):
		return false, "it names none of the addresses the client reaches the ensemble at"
	}
	h.servers, h.version = servers, version
	if h.provider != nil {
		h.provider.update(servers)
	}
	return true, ""
}

// sameServers reports whether a and b name the same servers, in any order.
func sameServers(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// standalone reports whether the server at addr said it runs standalone
// (srvr's "Mode: standalone"), asking it once per client; asked is false
// when it could not be asked (no answer at all). A server that answers
// without a mode (srvr not allowed) counts as not standalone: the tracker
// then reads the configuration, which costs one read.
func (h *ensembleHosts) standalone(life context.Context, caps *wire.ServerCaps, addr string) (standalone, asked bool) {
	h.mu.Lock()
	mode, known := h.modes[addr]
	h.mu.Unlock()
	if !known {
		var ok bool
		if mode, ok = askMode(life, caps.Dial, caps.Timeout, addr); !ok {
			return false, false
		}
		h.mu.Lock()
		if h.modes == nil {
			h.modes = make(map[string]string)
		}
		h.modes[addr] = mode
		h.mu.Unlock()
	}
	return mode == "standalone", true
}

// modeLine finds the server's mode in srvr's answer: "Mode: follower".
var modeLine = regexp.MustCompile(`(?m)^Mode: (\S+)`)

// askMode sends srvr to addr and returns the mode it says ("" for an
// answer that says none); ok is false when no answer came. The end of
// life cuts the exchange short (Close does not wait out a slow server);
// the dial is bounded by timeout only.
func askMode(life context.Context, dial wire.DialFunc, timeout time.Duration, addr string) (string, bool) {
	if addr == "" {
		return "", false
	}
	conn, err := dial("tcp", addr, timeout)
	if err != nil {
		return "", false
	}
	defer conn.Close()
	defer context.AfterFunc(life, func() { _ = conn.Close() })()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(conn, "srvr"); err != nil {
		return "", false
	}
	answer, _ := io.ReadAll(io.LimitReader(conn, 64<<10))
	if len(answer) == 0 {
		return "", false
	}
	if m := modeLine.FindSubmatch(answer); m != nil {
		return string(m[1]), true
	}
	return "", true // an answer without a mode: srvr not allowed, say
}

// update makes servers the provider's list, which Init (when go-zookeeper
// calls it later) then keeps. The list is shuffled, as go-zookeeper
// shuffles a connect string's, so that the clients of a moved ensemble
// spread over its servers instead of all dialling the first.
func (hp *hostProvider) update(servers []string) {
	servers = slices.Clone(servers)
	rand.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.servers = servers
	hp.next = 0
	hp.updated = true
}

// list returns the provider's servers.
func (hp *hostProvider) list() []string {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	return slices.Clone(hp.servers)
}

// WithoutEnsembleTracking makes the client dial the servers of its connect
// string for good, as go-zookeeper does, instead of following the
// ensemble's configuration (Curator's ensembleTracker(false)). Turn
// tracking off when the client must keep going through addresses that
// the configuration cannot name and that the client would not recognise
// (tracking already keeps the list when the configuration names none of
// the addresses in use), or where the ensemble's own addresses are not
// to be dialled. The default tracks: the client reads /zookeeper/config
// once per session on a server that is not standalone, watches it, and
// dials the client addresses of its members from then on, so that an
// ensemble moved to new servers by reconfiguration keeps the session.
func WithoutEnsembleTracking() Option {
	return func(c *config) error {
		c.untracked = true
		return nil
	}
}

// serverList returns the servers the client dials, for messages: the
// ensemble's configuration once followed, else the connect string's.
func (c *Client) serverList() []string {
	c.ensemble.mu.Lock()
	defer c.ensemble.mu.Unlock()
	if c.ensemble.servers != nil {
		return slices.Clone(c.ensemble.servers)
	}
	return c.servers
}

// onlyServer reports whether addr is the one server the client dials.
func (c *Client) onlyServer(addr string) bool {
	servers := c.serverList()
	return len(servers) == 1 && servers[0] == addr
}
