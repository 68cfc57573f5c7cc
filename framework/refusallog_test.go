package framework_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// logRecord is what recordedLog keeps of a record: its level, message
// and attributes as text.
type logRecord struct {
	level slog.Level
	msg   string
	attrs string
}

// recordedLog is a slog handler that keeps every record, debug ones too,
// with the record's own attributes (those of Logger.With are dropped).
type recordedLog struct {
	mu      sync.Mutex
	records []logRecord
}

func (l *recordedLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordedLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *recordedLog) WithGroup(string) slog.Handler            { return l }

func (l *recordedLog) Handle(_ context.Context, r slog.Record) error {
	var attrs strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		attrs.WriteString(a.String() + " ")
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, logRecord{level: r.Level, msg: r.Message, attrs: attrs.String()})
	return nil
}

// matching returns the records whose message contains one of msgs.
func (l *recordedLog) matching(msgs ...string) []logRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logRecord
	for _, r := range l.records {
		for _, msg := range msgs {
			if strings.Contains(r.msg, msg) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// A client that gave up on a refusal says so once, at error level and
// naming the cause, and then neither warns that it is still trying nor
// tries: no connection, and no attempt of go-zookeeper's (which, left to
// itself, calls the dialer again every second until Close).
func TestRefusal_AClientThatGaveUpLogsItOnceAndTriesNoMore(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t, zktesting.WithTLS(), zktesting.WithSASLUsers(map[string]string{"bob": "bobsecret"}))
	unknownCA := server.TLS().ClientConfig("alice")
	unknownCA.RootCAs = zktesting.NewTLS().CAPool()
	for name, test := range map[string]struct {
		addr   string
		opt    framework.Option
		refuse error
		cause  string // in the error record
	}{
		"TLS":  {server.TLSAddr(), framework.WithTLS(unknownCA), framework.ErrTLSHandshake, "certificate signed by unknown authority"},
		"SASL": {server.Addr(), framework.WithSASL("bob", "guess"), framework.ErrAuthFailed, "client authentication failed"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			logs := &recordedLog{}
			var dials atomic.Int64
			c, err := framework.New([]string{test.addr}, test.opt, framework.WithLogger(slog.New(logs)),
				framework.WithZKOptions(zk.WithDialer(countedDialer(&dials))))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			framework.SetUnreachableLogEvery(c, time.Millisecond)
			ctx, cancel := context.WithTimeout(testContext(t), 30*time.Second)
			defer cancel()
			require.ErrorIs(t, c.WaitConnected(ctx), test.refuse)

			// go-zookeeper logs each failed attempt, the refused one at
			// least: a refused dial (TLS), or a refused exchange inside
			// the connection (SASL, TLS 1.3), which it sees as its
			// handshake failing.
			attempts := func() int { return len(logs.matching("failed to connect to", "authentication failed")) }
			require.Eventually(t, func() bool { return attempts() > 0 }, 10*time.Second, 10*time.Millisecond)
			tried, dialled := attempts(), dials.Load()
			assert.Never(t, func() bool {
				return attempts() > tried || dials.Load() > dialled || len(logs.matching("still trying")) > 0
			}, 3*time.Second, 20*time.Millisecond, "tried or warned again after giving up")
			assert.Empty(t, logs.matching("still trying"))
			assert.Equal(t, tried, attempts(), "go-zookeeper's attempts")
			assert.Equal(t, dialled, dials.Load(), "connections")

			var errors []logRecord
			for _, r := range logs.matching("") { // every record
				if r.level >= slog.LevelError {
					errors = append(errors, r)
				}
			}
			if assert.Len(t, errors, 1, "the refusal, told once") {
				assert.Contains(t, errors[0].attrs, test.cause)
			}
		})
	}
}
