package lease

import (
	"sync"
	"sync/atomic"
	"time"
)

// Lease is one session's lease: the instant before which the server
// cannot have expired the session. The server never expires a session
// sooner than its timeout T after it last heard from the client, and a
// request it answered was heard after it was sent: a reply proves the
// session alive until send + T, which the lease shortens by the margin ε
// for clock rates.
//
// Each connection of the session holds a grant of its own: the server
// counts the expiry from the connect request with the timeout it granted
// that connection, which may be shorter than the one before (a member with
// a lower maxSessionTimeout, or a server restarted with one). So a connect
// reply sets the deadline to its request's send instant plus the new
// length, earlier than before if need be, and from then on only replies
// of that connection advance it (see Regrant).
type Lease struct {
	clock Clock
	// mu serialises the moves of the deadline, so that an advance under
	// an old grant cannot undo a regrant.
	mu       sync.Mutex
	epoch    int64        // guarded by mu: the grant in force, one per connection
	deadline atomic.Int64 // clock reading; written under mu, read without it
	// lapsed is set by the watcher when the deadline passed; an advance
	// then tells the watcher that acknowledgements resumed.
	lapsed  atomic.Bool
	watcher atomic.Pointer[Watcher] // the Session of the lease, once announced
}

// Watcher is told of the moves of the deadline that its timer must
// follow: the lease's Session, which the lease does not know by its type.
type Watcher interface {
	// Shortened: a connection's grant moved the deadline back.
	Shortened()
	// Renewed: a reply moved the deadline on after it lapsed.
	Renewed()
}

// Watch announces the lease's watcher.
func (l *Lease) Watch(w Watcher) { l.watcher.Store(&w) }

// Deadline returns the deadline as a reading of the lease's clock.
func (l *Lease) Deadline() int64 { return l.deadline.Load() }

// DeadlineAt returns the deadline as an instant of the lease's clock.
func (l *Lease) DeadlineAt() time.Time { return l.clock.At(l.deadline.Load()) }

// SetLapsed records whether the watcher found the deadline passed: an
// advance of a lapsed lease tells it that acknowledgements resumed.
func (l *Lease) SetLapsed(v bool) { l.lapsed.Store(v) }

// Regrant starts the grant of a new connection of the session: its connect
// request, sent at clock reading sent, was answered with a timeout whose
// lease length is length. The deadline becomes sent+length, earlier than
// before if the grant shrank, and the returned epoch names the grant for
// advance.
func (l *Lease) Regrant(sent int64, length time.Duration) (epoch int64) {
	d := sent + int64(length)
	l.mu.Lock()
	l.epoch++
	epoch = l.epoch
	prev := l.deadline.Swap(d)
	l.mu.Unlock()
	if d < prev {
		if w := l.watcher.Load(); w != nil {
			(*w).Shortened()
		}
		return epoch
	}
	l.renewed()
	return epoch
}

// Advance moves the deadline to sent+length (a request sent at clock
// reading sent was answered on the connection of grant epoch) unless it is
// already later, or a newer grant is in force: a reply under an older
// grant proves nothing once the server counts with the new one.
func (l *Lease) Advance(epoch, sent int64, length time.Duration) {
	d := sent + int64(length)
	l.mu.Lock()
	if epoch != l.epoch || d <= l.deadline.Load() {
		l.mu.Unlock()
		return
	}
	l.deadline.Store(d)
	l.mu.Unlock()
	l.renewed()
}

// renewed tells the Session that the deadline moved on after it lapsed.
func (l *Lease) renewed() {
	// A lapse recorded after this load is seen by the next advance: the
	// lease stays lapsed until then, which only errs towards loss.
	if l.lapsed.Load() {
		if w := l.watcher.Load(); w != nil {
			(*w).Renewed()
		}
	}
}

// Left returns how long the lease still runs (zero or less: it ran out).
func (l *Lease) Left() time.Duration {
	return time.Duration(l.deadline.Load() - l.clock.Now())
}

// Book keeps the leases of the client's sessions by session id, so
// that each connection of a session advances that session's one lease.
type Book struct {
	Clock  Clock
	margin float64
	lag    time.Duration // WithServerLag

	mu     sync.Mutex
	leases map[int64]*Lease
}

// NewBook returns an empty book whose leases are counted on clk with
// margin and lag (see Length).
func NewBook(clk Clock, margin float64, lag time.Duration) *Book {
	return &Book{Clock: clk, margin: margin, lag: lag, leases: make(map[int64]*Lease)}
}

// Of returns the lease of session id, started if the book has none.
func (b *Book) Of(id int64) *Lease {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.leases[id]
	if l == nil {
		l = &Lease{clock: b.Clock}
		b.leases[id] = l
	}
	return l
}

// Find returns the lease of session id, or nil if no connect response
// of that session was seen.
func (b *Book) Find(id int64) *Lease {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leases[id]
}

// Forget drops the lease of an abandoned session.
func (b *Book) Forget(id int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.leases, id)
}

// Length returns how long a reply proves a session alive past the send
// instant of its request: T·(1−ε) for the granted timeout T, less the
// ping interval and the lag with a server lag configured (see
// WithServerLag). It is never negative.
func (b *Book) Length(granted time.Duration) time.Duration {
	return leaseLength(granted, b.margin, b.lag)
}

// leaseLength is Book.Length for margin and lag.
func leaseLength(granted time.Duration, margin float64, lag time.Duration) time.Duration {
	d := time.Duration(float64(granted) * (1 - margin))
	if lag > 0 {
		d -= pingInterval(granted) + lag
	}
	return max(d, 0)
}

// pingInterval is how often go-zookeeper pings a session of timeout T
// (two thirds of T is its receive timeout, and it pings at half that):
// the longest gap between the client's requests.
func pingInterval(granted time.Duration) time.Duration { return granted / 3 }

// Keepable reports whether a lease of timeout granted can be kept
// with prompt answers: it must outlast the gap to the next ping.
func Keepable(granted time.Duration, margin float64, lag time.Duration) bool {
	return leaseLength(granted, margin, lag) > pingInterval(granted)
}
