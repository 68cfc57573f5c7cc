package recipe

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
)

func TestBackground_RunsUntilItsCtxEndsAndSaysWhy(t *testing.T) {
	b := NewBackground("thing /a")
	ctx, cancel := context.WithCancel(context.Background())
	reached := make(chan struct{})
	require.NoError(t, b.Start(ctx, func(ctx context.Context) { close(reached); <-ctx.Done() }))
	assert.ErrorIs(t, b.Start(ctx, func(context.Context) {}), zkrecipes.ErrStarted)
	require.NoError(t, b.Await(context.Background(), reached, "await"))
	cancel()
	<-b.Done()
	assert.ErrorIs(t, b.Err(), context.Canceled)
	assert.ErrorIs(t, b.Start(context.Background(), func(context.Context) {}), zkrecipes.ErrStarted)
}

func TestBackground_CloseFromItsOwnGoroutineDoesNotWaitForItself(t *testing.T) {
	b := NewBackground("thing /a")
	closed := make(chan error, 1)
	require.NoError(t, b.Start(context.Background(), func(ctx context.Context) {
		closed <- b.Close(context.Background())
		<-ctx.Done()
	}))
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for its own goroutine")
	}
	<-b.Done()
	assert.NoError(t, b.Err(), "closed, not stopped on its own")
}

func TestBackground_ClosedBeforeStart(t *testing.T) {
	b := NewBackground("thing /a")
	require.NoError(t, b.Close(context.Background()))
	assert.ErrorIs(t, b.Start(context.Background(), func(context.Context) {}), zkrecipes.ErrClosed)
	assert.ErrorIs(t, b.Await(context.Background(), make(chan struct{}), "await"), zkrecipes.ErrClosed)
}

func TestListeners_AddRemoveEmitInOrder(t *testing.T) {
	var ls Listeners[int]
	var got []int
	ls.Add(func(v int) { got = append(got, v) })
	remove := ls.Add(func(v int) { got = append(got, -v) })
	ls.Emit(1)
	remove()
	ls.Emit(2)
	assert.Equal(t, []int{1, -1, 2}, got)
}
