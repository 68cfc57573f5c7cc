package recipe

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// read is one answer of the again function given to Follow.
type read struct {
	v    int
	ok   bool
	more bool
}

func TestFollow_AReaderThatFallsBehindGetsTheLatestValueOnly(t *testing.T) {
	changed := make(chan struct{}, 1)
	reads := make(chan read)
	again := func(ctx context.Context) (int, bool, <-chan struct{}, bool) {
		r := <-reads
		return r.v, r.ok, changed, r.more
	}
	out := Follow(context.Background(), 1, changed, again)
	require.Equal(t, 1, <-out)
	for _, r := range []read{{1, true, true}, {2, true, true}, {0, false, true}, {3, true, true}} {
		changed <- struct{}{}
		reads <- r
	}
	changed <- struct{}{}
	reads <- read{more: false}
	var got []int
	for v := range out {
		got = append(got, v)
	}
	// Only the last of what came while nobody read: 1 again is no change,
	// the malformed read is none, and 3 replaced 2.
	assert.Equal(t, []int{3}, got)
}

func TestFollow_TheChannelClosesWhenCtxEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := Follow(ctx, "first", make(chan struct{}), func(context.Context) (string, bool, <-chan struct{}, bool) {
		panic("nothing changed")
	})
	require.Equal(t, "first", <-out)
	cancel()
	_, open := <-out
	assert.False(t, open)
}

func TestSleep_ReturnsCtxsErrorWhenItEndsFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled)
	assert.NoError(t, Sleep(context.Background(), time.Nanosecond))
}
