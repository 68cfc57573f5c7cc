package zktesting

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

var (
	// ErrInvalidTickTime reports a tick time below one millisecond.
	ErrInvalidTickTime = errors.New("zktesting: tick time must be at least 1ms")
	// ErrInvalidSessionTimeout reports a maximum session timeout under two
	// ticks, the minimum.
	ErrInvalidSessionTimeout = errors.New("zktesting: invalid maximum session timeout")
	// ErrInvalidPort reports a port out of range, or a port given to an
	// ensemble.
	ErrInvalidPort = errors.New("zktesting: invalid port")
	// ErrInvalidSize reports an ensemble of fewer than one server.
	ErrInvalidSize = errors.New("zktesting: ensemble size must be at least 1")
	// ErrNoMember reports an ensemble member index out of range.
	ErrNoMember = errors.New("zktesting: no such ensemble member")
	// ErrNoZooKeeper reports that no ZooKeeper jar was found.
	ErrNoZooKeeper = errors.New("zktesting: zookeeper jar not found (install Debian's zookeeper package or set ZOOKEEPER_JAR)")
	// ErrNoJava reports that no java executable was found in PATH.
	ErrNoJava = errors.New("zktesting: java not found in PATH")
	// ErrPortInUse reports a port that another process already listens on.
	ErrPortInUse = errors.New("zktesting: port in use")
	// ErrExited reports a server process that exited while it was starting.
	ErrExited = errors.New("zktesting: server process exited")
	// ErrNotReady reports a server that did not become ready in time.
	ErrNotReady = errors.New("zktesting: server not ready")
	// ErrInvalidSyncLimit reports a syncLimit below one tick.
	ErrInvalidSyncLimit = errors.New("zktesting: sync limit must be at least 1 tick")
	// ErrNoPeerFaults reports Isolate or Rejoin on an ensemble started
	// without WithPeerFaults.
	ErrNoPeerFaults = errors.New("zktesting: ensemble started without WithPeerFaults")
	// ErrInvalidArgument reports an option with a value the server cannot
	// be given. It is the library's shared sentinel,
	// zkrecipes.ErrInvalidArgument.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrNotReconfigurable reports AddMembers or RemoveMembers on an
	// ensemble started without WithReconfig.
	ErrNotReconfigurable = errors.New("zktesting: ensemble started without WithReconfig")
	// ErrClosed reports a call on a server or ensemble after Close. It is
	// the library's shared sentinel, zkrecipes.ErrClosed, as the client's
	// and the recipes' are.
	ErrClosed = zkrecipes.ErrClosed
)
