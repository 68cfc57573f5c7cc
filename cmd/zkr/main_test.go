package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestDemo_ReportsWhatTheRecipesKept(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, []string{"demo", "-servers", zktest.Servers(t), "-workers", "3", "-rounds", "4", "-leases", "2"}, &out)
	require.NoError(t, err, out.String())
	assert.Contains(t, out.String(), "mutex: 12 acquisitions, overlapping holders: 0, fencing tokens out of order: 0")
	assert.Regexp(t, `semaphore: 12 leases taken, at most [12] held at once \(limit 2\)`, out.String())
	assert.Contains(t, out.String(), "nodes left behind: 0")
}

func TestRun_RejectsABadCommandLine(t *testing.T) {
	for _, args := range [][]string{nil, {"other"}, {"demo", "-workers", "0"}, {"demo", "-nosuchflag"}, {"demo", "extra"}} {
		err := run(context.Background(), args, &bytes.Buffer{})
		assert.ErrorIs(t, err, errUsage, "%q", args)
	}
}
