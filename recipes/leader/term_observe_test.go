package leader_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// componentLog is a slog.Handler that keeps every record with the
// component it was logged under.
type componentLog struct {
	component string
	mu        *sync.Mutex
	list      *[]componentRecord
}

type componentRecord struct {
	component string
	rec       slog.Record
}

func newComponentLog() *componentLog {
	return &componentLog{mu: new(sync.Mutex), list: new([]componentRecord)}
}

func (h *componentLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *componentLog) WithGroup(string) slog.Handler            { return h }
func (h *componentLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	for _, a := range attrs {
		if a.Key == "component" {
			c.component = a.Value.String()
		}
	}
	return &c
}
func (h *componentLog) Handle(_ context.Context, rec slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.list = append(*h.list, componentRecord{h.component, rec.Clone()})
	return nil
}

func (h *componentLog) records() []componentRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]componentRecord(nil), *h.list...)
}

// A latch's term is reported to the client's observer as it starts and as
// it ends, lost with its cause when the connection is cut; the loss is
// logged once, as a lost term, at Info, under zkrecipes/leader.
func TestLatch_TermIsObservedAndItsLossLoggedAsALostTerm(t *testing.T) {
	rec := &zktest.Recorder{}
	log := newComponentLog()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithObserver(rec), framework.WithLogger(slog.New(log)))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	l, err := leader.NewLatch(c, path, leader.WithID("p1"))
	require.NoError(t, err)
	require.NoError(t, l.Start(ctx))
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	lead, err := l.Await(ctx)
	require.NoError(t, err)

	terms := rec.Terms()
	require.Len(t, terms, 1)
	assert.Equal(t, framework.TermStarted, terms[0].Phase)
	assert.Equal(t, path, terms[0].Path)
	assert.Equal(t, "p1", terms[0].Participant)
	assert.Equal(t, lead.Node(), terms[0].Node)
	granted := rec.Acquires()
	require.NotEmpty(t, granted)
	assert.Equal(t, "leader.latch", granted[len(granted)-1].Recipe)

	proxy.Cut()
	select {
	case <-lead.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the term did not end")
	}
	require.Eventually(t, func() bool { return len(rec.Terms()) >= 2 }, 10*time.Second, 10*time.Millisecond)
	ended := rec.Terms()[1]
	assert.Equal(t, framework.TermEnded, ended.Phase)
	assert.Equal(t, framework.CauseSuspended, ended.Cause)
	assert.ErrorIs(t, ended.Err, leader.ErrLost)
	assert.Positive(t, ended.Duration)

	var lostTerm int
	require.Eventually(t, func() bool {
		lostTerm = 0
		for _, r := range log.records() {
			if r.rec.Message == "leader latch: term lost" {
				lostTerm++
				assert.Equal(t, "zkrecipes/leader", r.component)
				assert.Equal(t, slog.LevelInfo, r.rec.Level)
			}
		}
		return lostTerm > 0
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1, lostTerm)
	for _, r := range log.records() {
		assert.NotContains(t, r.rec.Message, "lock hold", "the term's lock does not speak for it: %s", r.rec.Message)
		if r.component != "zkrecipes/framework" {
			assert.Less(t, r.rec.Level, slog.LevelWarn, "%s %s: %s", r.component, r.rec.Level, r.rec.Message)
		}
	}
}
