package zktesting_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// dumpServer answers the dump four-letter word on a loopback port with
// what dump returns for the nth question (from 0), and returns its address.
func dumpServer(t *testing.T, dump func(n int64) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var asked atomic.Int64
	go func() { // ends when the listener is closed, at the end of the test
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			word := make([]byte, 4)
			if _, err := io.ReadFull(conn, word); err == nil && string(word) == "dump" {
				_, _ = io.WriteString(conn, dump(asked.Add(1)-1))
			}
			_ = conn.Close()
		}
	}()
	return ln.Addr().String()
}

// trackerDump is the server's dump with the session tracker listing the
// sessions given.
func trackerDump(sessions ...int64) string {
	out := fmt.Sprintf("SessionTracker dump:\nSession Sets (1)/(%d):\n%d expire at now:\n", len(sessions), len(sessions))
	for _, id := range sessions {
		out += fmt.Sprintf("\t0x%x\n", id)
	}
	return out + "ephemeral nodes dump:\nSessions with Ephemerals (0):\n"
}

// A dump can miss a live session that a request is moving to a later
// expiry bucket: one such dump must not end the partition as if the
// session had expired.
func TestFaults_ExpireSessionIsNotFooledByOneDumpThatMissesTheSession(t *testing.T) {
	const id = 0x1234
	addr := dumpServer(t, func(n int64) string {
		if n == 0 {
			return trackerDump() // the session was between buckets
		}
		return trackerDump(id)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := zktesting.NewFaults().ExpireSession(ctx, addr, id)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the session is still listed")
}

// A session that the dumps leave out, again and again, has expired.
func TestFaults_ExpireSessionReturnsOnceTheSessionStaysUnlisted(t *testing.T) {
	const id = 0x1234
	addr := dumpServer(t, func(n int64) string {
		if n < 3 {
			return trackerDump(id, 0x99)
		}
		return trackerDump(0x99)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	assert.NoError(t, zktesting.NewFaults().ExpireSession(ctx, addr, id))
}
