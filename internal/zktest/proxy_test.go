package zktest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// sharedAddr returns one address of the shared server.
func sharedAddr(t *testing.T) string {
	return strings.Split(Servers(t), ",")[0]
}

func TestProxy_PassesSessionsAndRequestsThrough(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	_, err := s.Create(path, []byte("hello"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	data, _, err := s.Get(path)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
}

func TestProxy_CutDisconnectsAndTheSessionSurvives(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	id := s.SessionID()

	p.Cut()
	s.await(t, zk.StateDisconnected, 5*time.Second)
	s.await(t, zk.StateHasSession, 10*time.Second)
	assert.Equal(t, id, s.SessionID(), "same session after reconnect")
	_, _, err := s.Exists("/")
	assert.NoError(t, err)
}

func TestProxy_PauseLongerThanSessionTimeoutExpiresSession(t *testing.T) {
	t.Parallel()
	addr := sharedAddr(t)
	p := NewProxy(t, addr)
	s := connect(t, p.Addr(), time.Second)
	sid := fmt.Sprintf("sid=0x%x", s.SessionID())

	p.Pause()
	s.await(t, zk.StateDisconnected, 5*time.Second)
	// The server expires the session once it has heard nothing for its
	// timeout, and closes the (proxied) connection.
	require.Eventually(t, func() bool {
		cons, err := zktesting.FourLetterWord(context.Background(), addr, "cons")
		return err == nil && !strings.Contains(cons, sid)
	}, 15*time.Second, 100*time.Millisecond, "server still lists %s", sid)
	p.Resume()
	s.await(t, zk.StateExpired, 20*time.Second)
}

func TestProxy_ShortPauseOnlyDelays(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	id := s.SessionID()

	p.Pause()
	done := make(chan error, 1)
	// Ends when the request is answered or fails.
	go func() {
		_, _, err := s.Exists("/")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("request answered during a partition: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	p.Resume() // the request was dropped: the connection is cut and the session lives
	err := <-done
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	s.await(t, zk.StateHasSession, 10*time.Second)
	assert.Equal(t, id, s.SessionID())
}

func TestProxy_DropNextCreateReplyLosesTheAnswerNotTheNode(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	p.DropNextCreateReply()
	_, _, err := s.Exists(path) // not a create: passes
	require.NoError(t, err)
	_, err = s.Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	assert.Equal(t, 1, p.DroppedReplies())

	s.await(t, zk.StateHasSession, 10*time.Second)
	ok, stat, err := s.Exists(path)
	require.NoError(t, err)
	require.True(t, ok, "the create reached the server")
	assert.Equal(t, s.SessionID(), stat.EphemeralOwner)

	_, err = s.Create(path+"-next", nil, 0, zk.WorldACL(zk.PermAll))
	assert.NoError(t, err, "only one create is dropped")
}

func TestProxy_DropNextCreateReplyCatchesCreateInMulti(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	p.DropNextCreateReply()
	_, err := s.Multi(&zk.CreateRequest{Path: path, Acl: zk.WorldACL(zk.PermAll)})
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	s.await(t, zk.StateHasSession, 10*time.Second)
	ok, _, err := s.Exists(path)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 1, p.DroppedReplies())
}

func TestProxy_SetDelayAddsLatencyEachWay(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)

	p.SetDelay(100 * time.Millisecond)
	start := time.Now()
	_, _, err := s.Exists("/")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)

	p.SetDelay(0)
	start = time.Now()
	_, _, err = s.Exists("/")
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 200*time.Millisecond)
}

func TestProxy_CloseEndsConnections(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	p.Close()
	s.await(t, zk.StateDisconnected, 5*time.Second)
	p.Close() // idempotent
}

func TestProxy_CountsRequestsByType(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)

	_, _, err := s.Children("/")
	require.NoError(t, err)
	_, _, err = s.Get("/")
	require.NoError(t, err)
	_, _, err = s.Get("/")
	require.NoError(t, err)
	assert.Equal(t, int64(1), p.Requests(OpGetChildren2))
	assert.Equal(t, int64(2), p.Requests(OpGetData))
	assert.Zero(t, p.Requests(OpDelete))
}

// Answered counts a request once the server's reply has reached the
// proxy, even while the proxy holds it back, and not while the request
// itself is still delayed on its way to the server.
func TestProxy_AnsweredCountsRepliesThatReachedTheProxy(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	p.HoldReplies()
	p.SetDelay(time.Second)
	got := make(chan error, 1)
	go func() { // ends when the read is answered
		_, _, err := s.Get("/")
		got <- err
	}()
	require.Eventually(t, func() bool { return p.Requests(OpGetData) == 1 }, 5*time.Second, time.Millisecond)
	assert.Zero(t, p.Answered(OpGetData), "the request is still delayed")
	require.Eventually(t, func() bool { return p.Answered(OpGetData) == 1 }, 5*time.Second, time.Millisecond,
		"the server's answer is held by the proxy")
	p.SetDelay(0)
	p.ReleaseReplies()
	require.NoError(t, <-got)
	assert.Zero(t, p.Answered(OpDelete))
}

func TestProxy_DropNextReplyLosesTheAnswerToASetNotTheWrite(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")
	_, err := s.Create(path, []byte("0"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	p.DropNextReply(OpSetData)
	_, err = s.Create(path+"-other", nil, 0, zk.WorldACL(zk.PermAll)) // not a set: passes
	require.NoError(t, err)
	_, err = s.Set(path, []byte("1"), 0)
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	assert.Equal(t, 1, p.DroppedRepliesOf(OpSetData))
	assert.Equal(t, 1, p.DroppedReplies())

	s.await(t, zk.StateHasSession, 10*time.Second)
	data, stat, err := s.Get(path)
	require.NoError(t, err)
	assert.Equal(t, "1", string(data), "the set reached the server")
	_, err = s.Set(path, []byte("2"), stat.Version)
	assert.NoError(t, err, "only one set is dropped")
}

func TestProxy_DropNextReplyLosesTheAnswerToAMulti(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")
	_, err := s.Create(path, []byte("0"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	p.DropNextReply(OpMulti)
	_, err = s.Multi(&zk.CheckVersionRequest{Path: path, Version: 0}, &zk.SetDataRequest{Path: path, Data: []byte("1"), Version: 0})
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	assert.Equal(t, 1, p.DroppedRepliesOf(OpMulti))
	s.await(t, zk.StateHasSession, 10*time.Second)
	data, _, err := s.Get(path)
	require.NoError(t, err)
	assert.Equal(t, "1", string(data), "the multi reached the server")
}

func TestProxy_DropNextReplyLosesTheAnswerToAnAuth(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)

	p.DropNextReply(OpSetAuth)
	err := s.AddAuth("digest", []byte("user:secret"))
	require.ErrorIs(t, err, zk.ErrConnectionClosed)
	assert.Equal(t, 1, p.DroppedRepliesOf(OpSetAuth))
	s.await(t, zk.StateHasSession, 10*time.Second)
}

func TestProxy_PauseRequestsDropsRequestsAndLetsNotificationsThrough(t *testing.T) {
	addr := sharedAddr(t)
	p := NewProxy(t, addr)
	s := connect(t, p.Addr(), 10*time.Second)
	other := connect(t, addr, 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")
	_, err := s.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, watch, err := s.GetW(path)
	require.NoError(t, err)

	p.PauseRequests()
	done := make(chan error, 1)
	// Ends when the request is answered or fails.
	go func() {
		_, _, err := s.Exists("/")
		done <- err
	}()
	_, err = other.Set(path, []byte("x"), -1)
	require.NoError(t, err)
	select {
	case ev := <-watch:
		assert.Equal(t, zk.EventNodeDataChanged, ev.Type, "the server's packets still arrive")
	case <-time.After(5 * time.Second):
		t.Fatal("no notification during a one-way partition")
	}
	select {
	case err := <-done:
		t.Fatalf("request answered during a one-way partition: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	p.Resume() // the request was dropped: the connection is cut
	require.ErrorIs(t, <-done, zk.ErrConnectionClosed)
}

func TestProxy_PauseRepliesAppliesRequestsButLosesTheirAnswers(t *testing.T) {
	addr := sharedAddr(t)
	p := NewProxy(t, addr)
	s := connect(t, p.Addr(), 10*time.Second)
	other := connect(t, addr, 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	p.PauseReplies()
	done := make(chan error, 1)
	// Ends when the request is answered or fails.
	go func() {
		_, err := s.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	require.Eventually(t, func() bool {
		ok, _, err := other.Exists(path)
		return err == nil && ok
	}, 5*time.Second, 10*time.Millisecond, "the request reached the server")
	select {
	case err := <-done:
		t.Fatalf("request answered while replies are dropped: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	p.Resume() // the answer was dropped: the connection is cut
	require.ErrorIs(t, <-done, zk.ErrConnectionClosed)
}

// ReleaseReplies also withdraws a HoldRepliesFrom whose reply has not come
// yet, armed or with its request on its way: a test that releases as soon
// as the server has applied the request may do so before the reply
// reaches the proxy, and that reply must not then be held for good.
func TestProxy_ReleaseRepliesWithdrawsAHoldNotYetBegun(t *testing.T) {
	t.Parallel()
	for _, sent := range []bool{false, true} {
		t.Run(fmt.Sprintf("request sent %v", sent), func(t *testing.T) {
			p := NewProxy(t, sharedAddr(t))
			s := connect(t, p.Addr(), 10*time.Second)

			p.HoldRepliesFrom(OpGetData)
			if !sent {
				p.ReleaseReplies()
			}
			p.SetDelay(300 * time.Millisecond) // the request is on its way a while
			got := make(chan error, 1)
			go func() {
				_, _, err := s.Get("/")
				got <- err
			}()
			if sent {
				require.Eventually(t, func() bool { return p.Requests(OpGetData) == 1 }, 5*time.Second, time.Millisecond)
				p.ReleaseReplies()
			}
			select {
			case err := <-got:
				require.NoError(t, err)
			case <-time.After(5 * time.Second):
				p.ReleaseReplies() // let the test end
				t.Fatal("the reply was held after ReleaseReplies")
			}
		})
	}
}

func TestProxy_SetAsideNextReplyLetsLaterAnswersPass(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	s := connect(t, p.Addr(), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	p.SetAsideNextReply(OpGetData)
	got := make(chan error, 1)
	go func() {
		_, _, err := s.Get("/")
		got <- err
	}()
	require.Eventually(t, func() bool { return p.Requests(OpGetData) == 1 }, 5*time.Second, time.Millisecond)
	_, err := s.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "a later answer passes the one set aside")
	select {
	case err := <-got:
		t.Fatalf("the answer set aside came before ReleaseReplies: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	p.ReleaseReplies()
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the answer set aside did not come after ReleaseReplies")
	}
}

func TestProxy_StallNextConnectionLeavesOneHandshakeOpenAndUnanswered(t *testing.T) {
	p := NewProxy(t, sharedAddr(t))
	p.StallNextConnection()
	stalled, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer stalled.Close()
	// A connect request's head: its length, then the protocol version.
	_, err = stalled.Write([]byte{0, 0, 0, 44, 0, 0, 0, 0})
	require.NoError(t, err)
	require.NoError(t, stalled.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = stalled.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "no answer, and no end either")
	assert.Equal(t, int64(1), p.Stalled())

	s := connect(t, p.Addr(), 10*time.Second)
	_, _, err = s.Exists("/")
	assert.NoError(t, err, "the next connection goes through")
}
