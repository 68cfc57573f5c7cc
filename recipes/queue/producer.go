package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// producer sends a queue's puts. Puts that wait at the same time go in one
// transaction (group commit): one request for all of them, in the order
// they came, so a single caller's puts keep their order and many callers
// share round trips. With a lock path, each transaction also advances the
// version of the producer's marker, which is how a put whose answer was
// lost is told applied or not (see send).
type producer struct {
	c *core

	// withdrawn has room for one signal: a put was withdrawn, for a flush
	// that waits for the connection.
	withdrawn chan struct{}

	mu       sync.Mutex // guards the fields below
	pending  []*put
	flushing bool          // a flush goroutine runs
	flushed  chan struct{} // closed when that flush ends
	closed   bool

	// marker is read and written by the flush goroutine alone (one at a
	// time; mu orders one after the next), and under mu by close once none
	// runs nor will.
	marker *marker
}

// put is one node to create.
type put struct {
	op    framework.Op
	size  int
	taken bool       // in a batch on its way: under producer.mu
	done  chan error // buffered: the batch's outcome
}

// marker is a producer's ephemeral node in the lock path. A put's
// transaction sets it at the version last seen, so the server applies the
// transaction at most once however often it is sent, and the version says
// whether it was.
type marker struct {
	path    string
	session *framework.Session
	version int32
}

// Batches stay well under the server's packet limit: a transaction also
// carries an ACL and a header per operation.
const (
	maxBatchOps   = 128
	maxBatchBytes = framework.MaxRequestSize - maxBatchOps*128
)

func newProducer(c *core) *producer { return &producer{c: c, withdrawn: make(chan struct{}, 1)} }

// put creates a node named name (the server appends the sequence) with
// data, in a transaction with the puts of other callers waiting now.
func (pr *producer) put(ctx context.Context, name string, data []byte) error {
	if err := pr.c.checkFits(name, data); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: put: %w", pr.c.what, err)
	}
	if pr.c.opts.maxItems > 0 {
		if err := pr.c.waitRoom(ctx); err != nil {
			return err
		}
	}
	p := &put{
		op:   framework.CreateOp(pr.c.itemPath(name), data, framework.PersistentSequential),
		size: len(pr.c.path) + len(name) + len(data) + 1, done: make(chan error, 1),
	}
	if err := pr.enqueue(p); err != nil {
		return err
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
	}
	if pr.withdraw(p) {
		return fmt.Errorf("%s: put: %w", pr.c.what, ctx.Err()) // never sent
	}
	select {
	case err := <-p.done: // answered as ctx ended: that answer counts
		return err
	default:
		return fmt.Errorf("%s: put: %w: %w", pr.c.what, ErrOutcomeUnknown, ctx.Err())
	}
}

// enqueue adds p to the pending puts and starts a flush unless one runs.
func (pr *producer) enqueue(p *put) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.closed {
		return fmt.Errorf("%s: put: %w", pr.c.what, ErrClosed)
	}
	pr.pending = append(pr.pending, p)
	if !pr.flushing {
		pr.flushing, pr.flushed = true, make(chan struct{})
		go pr.flush(pr.flushed) // ends when no put is pending
	}
	return nil
}

// withdraw takes p out of the pending puts unless a batch has taken it,
// and reports whether it did.
func (pr *producer) withdraw(p *put) bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if p.taken {
		return false
	}
	for i, q := range pr.pending {
		if q == p {
			pr.pending = append(pr.pending[:i], pr.pending[i+1:]...)
			break
		}
	}
	select {
	case pr.withdrawn <- struct{}{}:
	default:
	}
	return true
}

// awaitConnection waits, before a batch is taken, until the client is
// connected, or closed or refused (the batch then fails at once), or no
// put is pending. Until then no put is on its way, so a put whose ctx
// ends is withdrawn: a server that was never reached, or is away, gets
// none of the puts their callers gave up on.
func (pr *producer) awaitConnection() {
	for !pr.c.client.IsConnected() && !pr.nonePending() {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { // ends with the wait, or at a withdrawal, which ends the wait
			select {
			case <-pr.withdrawn:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := pr.c.client.WaitConnected(ctx)
		withdrawn := ctx.Err() != nil
		cancel()
		if err != nil && !withdrawn {
			return // closed, or refused for good
		}
	}
}

// nonePending reports whether no put is pending.
func (pr *producer) nonePending() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return len(pr.pending) == 0
}

// flush sends the pending puts, batch after batch, until none is left.
func (pr *producer) flush(flushed chan struct{}) {
	defer close(flushed)
	for {
		pr.awaitConnection()
		batch := pr.next()
		if batch == nil {
			return
		}
		err := pr.send(batch)
		for _, p := range batch {
			p.done <- err
		}
	}
}

// next takes the next batch off the pending puts, or ends the flush when
// there is none.
func (pr *producer) next() []*put {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if len(pr.pending) == 0 {
		pr.flushing = false
		return nil
	}
	n, size := 0, 0
	for n < len(pr.pending) && n < maxBatchOps {
		if n > 0 && size+pr.pending[n].size > maxBatchBytes {
			break
		}
		size += pr.pending[n].size
		pr.pending[n].taken = true
		n++
	}
	batch := append([]*put(nil), pr.pending[:n]...)
	pr.pending = append(pr.pending[:0], pr.pending[n:]...)
	return batch
}

// send runs one batch's transaction until the server has applied it once,
// or it fails. The puts' own contexts do not end it (their callers stop
// waiting instead); the client's retry policy bounds it.
func (pr *producer) send(batch []*put) error {
	ctx := context.Background()
	ops := make([]framework.Op, 1, len(batch)+1)
	for _, p := range batch {
		ops = append(ops, p.op)
	}
	var lost error // the first lost answer, nil until then
	var m *marker
	start := time.Now()
	for attempt := 0; ; attempt++ {
		// After a lost answer only the marker of the lost run can tell
		// whether it applied, and fence it off if not: that one is sent
		// again even when its session has ended (its node is then gone, and
		// the put unknown). A marker made since would let the put apply
		// twice.
		if lost == nil {
			var err error
			if m, err = pr.markerFor(ctx); err != nil {
				return err
			}
		}
		tx := ops[1:]
		if m != nil {
			ops[0] = framework.SetOp(m.path, nil, m.version)
			tx = ops
		}
		_, err := pr.c.client.Multi(ctx, tx...)
		done, err := pr.judge(ctx, m, err, &lost)
		if err == nil && !done {
			if werr := pr.c.client.Hooks().RetryWait(ctx, attempt, start); werr != nil {
				err = pr.gaveUp(lost, werr)
			}
		}
		if err != nil && lost != nil {
			pr.forget(m)
		}
		if done || err != nil {
			return err
		}
	}
}

// forget drops the marker of a batch given up on after a lost answer: a
// lost run may have moved its version, so that a later refusal by it would
// prove nothing.
func (pr *producer) forget(m *marker) {
	if m == nil || pr.marker != m {
		return // markerFailed has dropped it already
	}
	pr.marker = nil
	pr.c.deleteMarker(m)
}

// judge reads a batch's transaction's outcome: done (applied, once), an
// error (given up), or neither: send it again.
func (pr *producer) judge(ctx context.Context, m *marker, err error, lost *error) (done bool, _ error) {
	var opErr *framework.MultiOpError
	switch {
	case err == nil:
		if m != nil {
			m.version++
		}
		return true, nil
	case errors.Is(err, ErrOutcomeUnknown) && m != nil:
		if *lost == nil {
			*lost = err
		}
		return false, nil // the marker's version tells, or lets it run
	case !errors.As(err, &opErr):
		return false, pr.gaveUp(*lost, err)
	case opErr.Index == 0 && m != nil:
		return pr.markerFailed(m, opErr, *lost)
	case errors.Is(opErr.Err, zk.ErrNoNode):
		return false, pr.c.ensureDirs(ctx) // the queue's directory is missing
	}
	return false, pr.gaveUp(*lost, err)
}

// markerFailed reads a transaction that failed at its marker. At a later
// version, the marker says that a run whose answer was lost has applied
// the batch; gone, that its session ended, taking the proof with it.
func (pr *producer) markerFailed(m *marker, opErr *framework.MultiOpError, lost error) (done bool, _ error) {
	pr.marker = nil // a marker that surprised us is not used again
	switch {
	case lost != nil && errors.Is(opErr.Err, zk.ErrBadVersion):
		return true, nil // only a lost run of this batch moved it
	case lost != nil:
		return false, fmt.Errorf("%s: put: %w: answer lost (%w), and the put marker went with its session", pr.c.what, ErrOutcomeUnknown, lost)
	}
	if !errors.Is(opErr.Err, zk.ErrNoNode) {
		pr.c.deleteMarker(m) // at another version with no lost answer: not to be trusted
	}
	return false, nil
}

// gaveUp is the error of a batch given up on: ErrOutcomeUnknown when a
// run's answer was lost, since that run may have applied it.
func (pr *producer) gaveUp(lost, err error) error {
	if lost != nil && !errors.Is(err, ErrOutcomeUnknown) {
		return fmt.Errorf("%s: put: %w: answer lost (%w), then: %w", pr.c.what, ErrOutcomeUnknown, lost, err)
	}
	return fmt.Errorf("%s: put: %w", pr.c.what, err)
}
