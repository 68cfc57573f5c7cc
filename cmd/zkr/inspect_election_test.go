package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

func TestParticipantID_TellsASelectorsNodesFromAMutexs(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{"host-a", true},
		{"web-1.example.com:8080", true},
		{"", false}, // a Go mutex, or a selector without an id
		{"zkr build-7 pid 4242: make release", false}, // zkr lock
		{"10.1.2.3", false},                           // Curator's default data: the local address
		{"fe80::1", false},
		{"__REVOKE__", false},
	} {
		assert.Equal(t, tc.want, participantID(Node{Data: tc.data}), "%q", tc.data)
	}
}

// A leader selector's queue is a mutex's on the wire; inspect names it an
// election from its participant ids, and its head the leader.
func TestInspect_NamesASelectorsElectionAnElection(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	ctx, cancel := context.WithCancel(ctxOf(t))
	defer cancel()
	observer := client(t)
	leading := make(chan string, 2)
	for i, id := range []string{"a", "b"} {
		sel, err := leader.NewSelector(client(t), path, func(ctx context.Context) error {
			leading <- id
			<-ctx.Done()
			return nil
		}, leader.WithID(id))
		require.NoError(t, err)
		go func() { _ = sel.Run(ctx) }() // ends when the test cancels ctx
		require.Eventually(t, func() bool { return len(zktest.Children(t, observer, path)) == i+1 },
			time.Minute, 10*time.Millisecond)
	}
	first := <-leading

	r := inspectJSON(t, path)
	assert.Equal(t, "election", r.Recipe)
	require.Len(t, r.Holders, 1)
	require.Len(t, r.Waiters, 1)
	assert.Equal(t, "leader", r.Holders[0].Role)
	assert.Equal(t, first, r.Holders[0].Data)
	assert.Equal(t, "waiter", r.Waiters[0].Role)

	code, stdout, stderr := runZkr(t, "inspect", "--servers", zktest.Servers(t), path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "election, 1 holding, 1 waiting")
	assert.NotContains(t, stdout, "mutex")
}
