package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// fakeLocker hands out holds whose loss the test controls: each hold is
// lost after lostAfter (never if negative; at once, before the acquire
// returns, if zero), and its Release returns releaseErr.
type fakeLocker struct {
	lostAfter  time.Duration
	releaseErr error
	peer       bool // hand out PeerHeld holds, stamped as a peer would
	downgrade  bool // hand out Downgrader holds

	mu       sync.Mutex
	acquired int
	released int
}

func (f *fakeLocker) Exclusive() bool { return true }

func (f *fakeLocker) Acquire(ctx context.Context) (Held, error) {
	f.mu.Lock()
	f.acquired++
	n := f.acquired
	f.mu.Unlock()
	if n > 1 { // one hold per run: wait for the end
		<-ctx.Done()
		return nil, ctx.Err()
	}
	h := &fakeHeld{f: f, lost: make(chan struct{})}
	if f.downgrade {
		return &fakeDowngrader{fakeHeld: h}, nil
	}
	if f.peer {
		// The peer's acquire returned a while before the Go side hears of it.
		return &fakePeerHeld{fakeHeld: h, at: zktest.Monotonic() - int64(5*time.Millisecond)}, nil
	}
	switch {
	case f.lostAfter == 0:
		close(h.lost)
	case f.lostAfter > 0:
		time.AfterFunc(f.lostAfter, func() { close(h.lost) })
	}
	return h, nil
}

type fakeHeld struct {
	f    *fakeLocker
	lost chan struct{}
}

func (h *fakeHeld) Lost() <-chan struct{}                       { return h.lost }
func (h *fakeHeld) FencingToken(context.Context) (int64, error) { return 42, nil }
func (h *fakeHeld) Node() string                                { return "/fake/lock-0000000001" }
func (h *fakeHeld) Release(context.Context) error {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.f.released++
	return h.f.releaseErr
}

// fakePeerHeld is a hold of a peer that stamps its own instants.
type fakePeerHeld struct {
	*fakeHeld
	at     int64 // when the peer's acquire returned
	called int64 // when the peer began to release
}

func (h *fakePeerHeld) AcquiredAt() int64 { return h.at }
func (h *fakePeerHeld) ReleaseAt(ctx context.Context) (int64, error) {
	h.called = zktest.Monotonic() + int64(3*time.Millisecond) // after the Go side asked
	return h.called, h.Release(ctx)
}

// fakeDowngrader is a write hold that downgrades to a read hold of the
// same fakeLocker.
type fakeDowngrader struct{ *fakeHeld }

func (h *fakeDowngrader) Downgrade(ctx context.Context) (Held, error) {
	return &fakeHeld{f: h.f, lost: make(chan struct{})}, h.Release(ctx)
}

// runOne runs a worker on f until its one hold is recorded and released.
func runOne(t *testing.T, f *fakeLocker, holdFor time.Duration) (Hold, *Stats) {
	ledger, stats := NewLedger(), NewStats()
	w := &Worker{Recipe: "r", Holder: "w", Locker: f, Ledger: ledger, Stats: stats, HoldFor: holdFor}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }() // ends with ctx
	require.Eventually(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.released == 1
	}, 10*time.Second, time.Millisecond)
	cancel()
	<-done
	holds := ledger.Holds()
	require.Len(t, holds, 1)
	return holds[0], stats
}

func TestWorker_RecordsTheHoldAsItWent(t *testing.T) {
	t.Run("released", func(t *testing.T) {
		h, stats := runOne(t, &fakeLocker{lostAfter: -1}, 20*time.Millisecond)
		assert.False(t, h.Lost)
		assert.GreaterOrEqual(t, h.End.Sub(h.Acquired), 20*time.Millisecond)
		assert.Equal(t, int64(42), h.Token)
		assert.Equal(t, "/fake/lock-0000000001", h.Node)
		assert.Equal(t, 1, stats.acquisitions["r"])
	})
	t.Run("lost while held ends at the signal", func(t *testing.T) {
		h, stats := runOne(t, &fakeLocker{lostAfter: 30 * time.Millisecond, releaseErr: zkrecipes.ErrLost}, time.Minute)
		assert.True(t, h.Lost)
		assert.Less(t, h.End.Sub(h.Acquired), 10*time.Second, "not the minute it meant to hold")
		assert.Equal(t, 1, stats.losses["r"])
		assert.Empty(t, stats.releaseErrors, "ErrLost after a loss is no release error")
	})
	t.Run("lost before the acquire returned is never in force", func(t *testing.T) {
		h, _ := runOne(t, &fakeLocker{lostAfter: 0}, time.Minute)
		assert.True(t, h.Lost)
		assert.Equal(t, h.Acquired, h.End)
	})
	t.Run("a peer's hold spans the peer's own instants", func(t *testing.T) {
		f := &fakeLocker{lostAfter: -1, peer: true}
		h, _ := runOne(t, f, 10*time.Millisecond)
		assert.False(t, h.Lost)
		assert.GreaterOrEqual(t, h.End.Sub(h.Acquired), 18*time.Millisecond,
			"from the peer's acquire (5 ms before the Go side heard) to its release (3 ms after the Go side asked)")
	})
	t.Run("a downgrade records the write hold, then the read hold", func(t *testing.T) {
		f := &fakeLocker{lostAfter: -1, downgrade: true}
		ledger, stats := NewLedger(), NewStats()
		w := &Worker{Recipe: "r", Holder: "w", Locker: f, Ledger: ledger, Stats: stats, HoldFor: time.Millisecond}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); w.Run(ctx) }() // ends with ctx
		require.Eventually(t, func() bool { return len(ledger.Holds()) == 2 }, 10*time.Second, time.Millisecond)
		cancel()
		<-done
		holds := ledger.Holds()
		write, read := holds[0], holds[1]
		assert.True(t, write.Exclusive)
		assert.False(t, read.Exclusive)
		assert.False(t, read.Acquired.Before(write.End), "the read hold begins after the write hold's recorded end")
		assert.Equal(t, 2, f.released, "the write hold by the downgrade, the read hold by its release")
		assert.Empty(t, ledger.Check())
	})
	t.Run("a failed release is counted", func(t *testing.T) {
		_, stats := runOne(t, &fakeLocker{lostAfter: -1, releaseErr: errors.New("boom")}, time.Millisecond)
		assert.Equal(t, 1, stats.releaseErrors["r release: other"])
	})
}

func TestReport_FailsOnAnyBrokenPromise(t *testing.T) {
	for name, spoil := range map[string]func(r *Report){
		"violation":     func(r *Report) { r.Violations = append(r.Violations, Violation{Kind: "overlap"}) },
		"orphan":        func(r *Report) { r.Orphans = append(r.Orphans, "/a/lock-0000000001") },
		"leak":          func(r *Report) { r.LeakedGoroutines = 1 },
		"state problem": func(r *Report) { r.StateProblems = append(r.StateProblems, "lost after connected") },
	} {
		r := NewReport(time.Minute, 7, 3)
		require.False(t, r.Failed())
		spoil(r)
		assert.True(t, r.Failed(), name)
	}
	r := NewReport(time.Minute, 7, 3)
	r.Faults = map[string]int{FaultCut: 2, FaultExpire: 1}
	r.Fill(NewStats())
	assert.Contains(t, r.Summary(), "faults={cut=2 expire=1}")
	assert.Contains(t, r.Summary(), "violations=0 orphans=0 leaked_goroutines=0")
	path := filepath.Join(t.TempDir(), "sub", "report.json")
	require.NoError(t, r.Write(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back))
	for _, key := range []string{"faults", "acquisitions", "losses_signalled", "violations", "orphans", "leaked_goroutines"} {
		assert.Contains(t, back, key)
	}
}

func TestErrorClass_TellsATimeoutFromContention(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("mutex: acquire /p: %w", zkrecipes.ErrNotAcquired), "not acquired in time"},
		{fmt.Errorf("leases: release /p/l: deletion continues in the background: %w", context.DeadlineExceeded), "timed out"},
		{fmt.Errorf("x: %w", zkrecipes.ErrLost), "lost"},
		{errors.New("broken pipe"), "other"},
	} {
		assert.Equal(t, tc.want, errorClass(tc.err), "%v", tc.err)
	}
}
