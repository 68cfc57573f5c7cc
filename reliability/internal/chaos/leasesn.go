package chaos

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// SemaphoreN is a Locker on a semaphore.Semaphore of its own that acquires
// N leases at once (one transaction), recorded as one hold of N leases.
type SemaphoreN struct {
	s *semaphore.Semaphore
	n int
}

// NewSemaphoreN returns a SemaphoreN on the semaphore at path with max
// leases.
func NewSemaphoreN(client *framework.Client, path string, maxLeases, n int) (*SemaphoreN, error) {
	s, err := semaphore.New(client, path, maxLeases)
	if err != nil {
		return nil, err
	}
	return &SemaphoreN{s: s, n: n}, nil
}

// Exclusive returns false.
func (l *SemaphoreN) Exclusive() bool { return false }

// Acquire acquires N leases, all or none.
func (l *SemaphoreN) Acquire(ctx context.Context) (Held, error) {
	ls, err := l.s.AcquireN(ctx, l.n)
	if err != nil {
		return nil, err
	}
	h := &leasesHeld{s: l.s, ls: ls, lost: make(chan struct{}), done: make(chan struct{})}
	// Ends when a lease is lost or the leases are returned.
	go func() {
		defer close(h.lost)
		cases := make([]<-chan struct{}, 0, len(ls))
		for _, lease := range ls {
			cases = append(cases, lease.Lost())
		}
		waitAny(cases, h.done)
	}()
	return h, nil
}

// leasesHeld is several leases held at once: lost when any is.
type leasesHeld struct {
	s    *semaphore.Semaphore
	ls   []*leases.Lease
	lost chan struct{} // closed when a lease is lost, or after Release
	done chan struct{} // closed by Release
}

func (h *leasesHeld) Lost() <-chan struct{} { return h.lost }

// FencingToken returns 0: leases carry no fencing token here.
func (h *leasesHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h *leasesHeld) Node() string { return h.ls[0].Node() }

// Leases returns how many leases the hold takes.
func (h *leasesHeld) Leases() int { return len(h.ls) }

func (h *leasesHeld) Release(ctx context.Context) error {
	close(h.done)
	return h.s.Release(ctx, h.ls...)
}

// waitAny returns when one of chs, or done, is closed.
func waitAny(chs []<-chan struct{}, done <-chan struct{}) {
	merged := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	for _, ch := range chs {
		// Ends when ch closes or waitAny returns.
		go func() {
			select {
			case <-ch:
				select {
				case merged <- struct{}{}:
				case <-stop:
				}
			case <-stop:
			}
		}()
	}
	select {
	case <-merged:
	case <-done:
	}
}
