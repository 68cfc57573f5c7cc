package leader

import "time"

// The wait of an auto-requeued Selector after its function failed on its
// own: it doubles from requeueBackoffMin with each term in a row that
// failed so, up to requeueBackoffMax. A function that keeps failing at
// once (a misconfiguration, a dependency down) would otherwise take and
// give up leadership many times a second; while its participant waits,
// its node is gone and another participant leads.
const (
	requeueBackoffMin = 250 * time.Millisecond
	requeueBackoffMax = 30 * time.Second
)

// failedBackoff is the back-off of an auto-requeued Selector's Run.
type failedBackoff struct{ wait time.Duration }

// next returns the wait before queueing again after a term that lasted
// lasted, whose function failed on its own if failed. A term that ended
// otherwise (the function returned nil, or the term was lost, closed or
// stopped), or that lasted longer than requeueBackoffMax before failing,
// starts the count again.
func (b *failedBackoff) next(failed bool, lasted time.Duration) time.Duration {
	switch {
	case !failed || lasted > requeueBackoffMax:
		b.wait = 0
	case b.wait == 0:
		b.wait = requeueBackoffMin
	default:
		b.wait = min(2*b.wait, requeueBackoffMax)
	}
	return b.wait
}
