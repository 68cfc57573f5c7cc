package otelzk

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/zkrecipes/zkrecipes/framework"
)

// connectionStates are the values of StateKey on
// zkrecipes.client.connection.count: the states a client can be in, a
// Reconnected client being connected.
var connectionStates = [...]string{"connected", "suspended", "lost", "read_only"}

// stateValue names a state as StateKey's values do: lower case, with
// underscores, as OpenTelemetry's enumerations are spelt.
func stateValue(s framework.ConnectionState) string {
	if s == framework.ReadOnly {
		return "read_only" // String says "read-only"
	}
	return s.String()
}

// OnState counts the change, and a reconnection, and keeps the client for
// the connection count and its session for the lease gauge.
func (o *Observer) OnState(ev framework.StateEvent) {
	ctx := context.Background()
	o.states.Add(ctx, 1, metric.WithAttributes(StateKey.String(stateValue(ev.Change.State))))
	if ev.Change.State == framework.Reconnected {
		o.reconnects.Add(ctx, 1, metric.WithAttributes(NewSession.Bool(ev.Change.NewSession)))
	}
	closed := ev.Client.IsClosed()
	o.mu.Lock()
	defer o.mu.Unlock()
	if !closed {
		o.clients[ev.Client] = struct{}{}
	}
	if ev.Session == nil || !ev.Leased {
		delete(o.sessions, ev.Client)
		return
	}
	o.sessions[ev.Client] = ev.Session
}

// observeConnections counts the clients in each state, as each client
// says at this moment (a state change waits in the listener's queue a
// little); a state no client is in counts 0, so that every series is
// there to alert on. A closed client is forgotten.
func (o *Observer) observeConnections(_ context.Context, obs metric.Int64Observer) error {
	o.mu.Lock()
	clients := make([]*framework.Client, 0, len(o.clients))
	for c := range o.clients {
		clients = append(clients, c)
	}
	o.mu.Unlock()
	counts := make(map[string]int64, len(connectionStates))
	for _, c := range clients { // the client's lock is not taken under o.mu
		if c.IsClosed() {
			o.forget(c)
			continue
		}
		switch s := c.State(); s {
		case framework.Connected, framework.Reconnected:
			counts["connected"]++
		case framework.Suspended, framework.Lost, framework.ReadOnly:
			counts[stateValue(s)]++
		}
	}
	for _, s := range connectionStates {
		obs.Observe(counts[s], metric.WithAttributes(StateKey.String(s)))
	}
	return nil
}

// forget drops a closed client from the connection count.
func (o *Observer) forget(c *framework.Client) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.clients, c)
}

// observeLeases reports each client's lease margin; a client whose
// session was lost (or that was closed) is forgotten.
func (o *Observer) observeLeases(_ context.Context, obs metric.Float64Observer) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for c, s := range o.sessions {
		d, ok := s.LeaseDeadline()
		if !ok || s.IsLost() {
			delete(o.sessions, c)
			continue
		}
		obs.Observe(time.Until(d).Seconds())
	}
	return nil
}
