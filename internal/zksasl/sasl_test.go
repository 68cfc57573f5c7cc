package zksasl_test

import (
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zksasl"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The exchange against the real server, end to end through the framework,
// is tested in framework (sasl_test.go); here, what the connection itself
// tells its reader and its dialer's caller.

// saslServer starts a server that knows bob (password bobsecret).
func saslServer(t *testing.T) *zktesting.Server {
	t.Helper()
	return zktest.NewServer(t, zktesting.WithSASLUsers(map[string]string{"bob": "bobsecret"}))
}

// connectRequest is a connect request for a new session, framed.
func connectRequest() []byte {
	// protocol version, last zxid, timeout, session, password (16 bytes),
	// read-only.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 4000)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 16)
	req = append(req, make([]byte, 16)...)
	req = append(req, 0)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...)
}

// firstRead dials through zksasl, sends a connect request and makes the
// first Read, where the exchange runs, waiting at most wait.
func firstRead(t *testing.T, dial zk.Dialer, addr string, wait time.Duration) ([]byte, error) {
	t.Helper()
	conn, err := dial("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = conn.Write(connectRequest())
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(wait)))
	buf := make([]byte, 64)
	n, err := conn.Read(buf)
	return buf[:n], err
}

// The connection says why: the first Read, go-zookeeper's read of the
// connect response, fails with ErrAuthFailed, which the dialer's caller
// is told of first.
func TestDialer_WrongPasswordFailsTheConnectResponsesReadForGood(t *testing.T) {
	server := saslServer(t)
	var told []error
	_, err := firstRead(t, zksasl.Dialer(nil, "bob", "guess", func(err error) { told = append(told, err) }), server.Addr(), 30*time.Second)
	require.ErrorIs(t, err, zksasl.ErrAuthFailed)
	require.ErrorIs(t, err, zk.ErrAuthFailed, "the server's AUTHFAILED")
	require.Len(t, told, 1)
	assert.Equal(t, err, told[0])
}

// The right password gets the connect response, handed on whole.
func TestDialer_RightPasswordHandsTheConnectResponseOn(t *testing.T) {
	server := saslServer(t)
	resp, err := firstRead(t, zksasl.Dialer(nil, "bob", "bobsecret", func(err error) { t.Errorf("told of %v", err) }), server.Addr(), 30*time.Second)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(resp), 20)
	assert.Equal(t, len(resp)-4, int(binary.BigEndian.Uint32(resp[0:4])), "the whole connect response")
	assert.NotZero(t, binary.BigEndian.Uint64(resp[12:20]), "a session")
}

// A connection lost in the middle of the exchange is not a refusal: the
// dialer's caller is not told, and the error is the connection's own.
func TestDialer_AConnectionLostMidwayIsNoRefusal(t *testing.T) {
	server := saslServer(t)
	proxy := zktest.NewProxy(t, server.Addr())
	proxy.DropNextReply(102) // the answer to the empty token
	// The proxy drops the answer and the connection with it.
	_, err := firstRead(t, zksasl.Dialer(nil, "bob", "bobsecret", func(err error) { t.Errorf("told of %v", err) }), proxy.Addr(), 30*time.Second)
	require.ErrorIs(t, err, io.EOF)
	assert.NotErrorIs(t, err, zksasl.ErrAuthFailed)
	assert.Equal(t, 1, proxy.DroppedReplies())
}
