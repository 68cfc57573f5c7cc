package framework

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a log's output, written by the client's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A configuration the client cannot use (unreadable, naming no client
// address) leaves the list as it was and says so at warn; an empty one
// (a standalone server's) and a static one (no client ports, version 0)
// leave it too, quietly.
func TestApplyConfig_KeepsTheListForAConfigItCannotUse(t *testing.T) {
	logs := &lockedBuffer{}
	c, err := New([]string{"127.0.0.1:1"}, WithLogger(slog.New(slog.NewTextHandler(logs, nil))), WithoutEnsembleTracking())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	c.applyConfig([]byte("server.1=127.0.0.1:2888:3888;127.0.0.1:1\nserver.2=127.0.0.1:2889:3889;127.0.0.1:2\nversion=5"), "127.0.0.1:1")
	followed := []string{"127.0.0.1:1", "127.0.0.1:2"}
	require.Equal(t, followed, FollowedServers(c))

	for name, data := range map[string]string{
		"unreadable":        "server.1=127.0.0.1:2888\nversion=6",
		"no client address": "server.1=127.0.0.1:2888:3888\nserver.2=127.0.0.1:2889:3889\nversion=7",
		"static":            "server.1=127.0.0.1:2888:3888:participant\nversion=0",
		"empty":             "",
		"blank":             " \n",
	} {
		c.applyConfig([]byte(data), "127.0.0.1:1")
		assert.Equal(t, followed, FollowedServers(c), name)
	}
	assert.Equal(t, 2, strings.Count(logs.String(), `level=WARN msg="ensemble tracking`), logs.String())
}
