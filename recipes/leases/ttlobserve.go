package leases

import (
	"path"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// observeTTL has the client's observer, if it has one, hear of the start
// and the end of the TTL lease as it hears of a session lease's
// (holdwatch): released, expired, or taken over or deleted by someone
// else. It is called before the lease's watch starts, so the start is
// told before any end.
func (l *Lease) observeTTL() {
	o := l.client.Hooks().Observer()
	if o == nil {
		return
	}
	start, node, kind := time.Now(), l.node.Path, l.opts.kindOr()
	o.OnHoldStart(framework.HoldEvent{Recipe: kind, Path: path.Dir(node), Node: node})
	l.ttl.report = func(cause framework.Cause, err error) {
		o.OnHoldEnd(framework.HoldEvent{
			Recipe: kind, Path: path.Dir(node), Node: node,
			Held: time.Since(start), Cause: cause, Err: err,
		})
	}
}
