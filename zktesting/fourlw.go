package zktesting

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// defaultWordTimeout bounds a four-letter word when ctx has no deadline.
const defaultWordTimeout = 5 * time.Second

// FourLetterWord sends a four-letter word (ruok, srvr, mntr, cons, ...) to
// the server at addr and returns its whole answer. It gives up when ctx ends,
// or after 5 s if ctx has no deadline.
func FourLetterWord(ctx context.Context, addr, word string) (string, error) {
	if len(word) != 4 {
		return "", fmt.Errorf("zktesting: %q is not a four-letter word", word)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWordTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("zktesting: %s to %s: %w", word, addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return "", err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, word); err != nil {
		return "", fmt.Errorf("zktesting: %s to %s: %w", word, addr, err)
	}
	answer, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("zktesting: %s to %s: %w", word, addr, err)
	}
	return string(answer), nil
}

// Mntr runs the mntr four-letter word on the server at addr and returns its
// key-value pairs (zk_server_state, zk_packets_received, ...). A server that
// is not serving requests answers with no pairs, which is an error.
func Mntr(ctx context.Context, addr string) (map[string]string, error) {
	answer, err := FourLetterWord(ctx, addr, "mntr")
	if err != nil {
		return nil, err
	}
	stats := make(map[string]string)
	for line := range strings.Lines(answer) {
		key, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
		if ok {
			stats[key] = value
		}
	}
	if len(stats) == 0 {
		return nil, fmt.Errorf("zktesting: mntr on %s: %s", addr, strings.TrimSpace(answer))
	}
	return stats, nil
}

// mode returns the server's Mode from srvr: leader, follower, standalone, or
// "" when it does not serve or does not answer within probeTimeout.
func mode(ctx context.Context, addr string) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	answer, err := FourLetterWord(ctx, addr, "srvr")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(answer) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "Mode: "); ok {
			return m
		}
	}
	return ""
}
