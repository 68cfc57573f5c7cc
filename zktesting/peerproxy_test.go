package zktesting

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func initialMessage(version, sid int64, addr string) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint64(b, uint64(version))
	b = binary.BigEndian.AppendUint64(b, uint64(sid))
	b = binary.BigEndian.AppendUint32(b, uint32(len(addr)))
	return append(b, addr...)
}

func TestRewriteInitialMessage_PutsTheReverseLinkInTheAddress(t *testing.T) {
	for _, version := range []int64{electionProtocolV1, electionProtocolV2} {
		in := bytes.NewReader(append(initialMessage(version, 3, "127.0.0.1:40001"), "rest"...))
		var out bytes.Buffer
		require.NoError(t, rewriteInitialMessage(in, &out, "127.0.0.1:5"))
		assert.Equal(t, initialMessage(version, 3, "127.0.0.1:5"), out.Bytes())
		rest := make([]byte, 8)
		n, _ := in.Read(rest)
		assert.Equal(t, "rest", string(rest[:n]), "what follows the message is left to the copy")
	}
}

func TestRewriteInitialMessage_OldProtocolAndBadSizes(t *testing.T) {
	old := binary.BigEndian.AppendUint64(nil, 2) // a bare server id
	old = binary.BigEndian.AppendUint64(old, 7)
	var out bytes.Buffer
	require.NoError(t, rewriteInitialMessage(bytes.NewReader(old), &out, "127.0.0.1:5"))
	assert.Equal(t, old, out.Bytes())

	huge := initialMessage(electionProtocolV1, 3, "")
	binary.BigEndian.PutUint32(huge[16:], maxInitialAddrLen+1)
	assert.Error(t, rewriteInitialMessage(bytes.NewReader(huge), &out, "x"))
	assert.Error(t, rewriteInitialMessage(bytes.NewReader(huge[:10]), &out, "x"), "a short message")
}

func TestPeerLinks_ALinkStaysCutWhileEitherEndIsIsolated(t *testing.T) {
	peers := []peer{{id: 1, quorum: 1, election: 2}, {id: 2, quorum: 3, election: 4}, {id: 3, quorum: 5, election: 6}}
	links, err := newPeerLinks(peers)
	require.NoError(t, err)
	t.Cleanup(links.close)
	cut := func(i, j int) bool { return links[i][j].quorum.isCut() && links[i][j].election.isCut() }

	isolated := []bool{true, true, false}
	links.apply(0, isolated)
	links.apply(1, isolated)
	assert.True(t, cut(0, 1) && cut(1, 0) && cut(0, 2) && cut(2, 1))

	isolated[0] = false
	links.apply(0, isolated)
	assert.False(t, cut(0, 2) || cut(2, 0), "member 0 reaches member 2 again")
	assert.True(t, cut(0, 1) && cut(1, 0), "member 1 is still isolated")
	assert.True(t, cut(1, 2) && cut(2, 1))

	view := links.view(2, peers)
	assert.Equal(t, peers[2], view[2], "a member binds its own ports")
	assert.Equal(t, links[2][0].election.port(), view[0].election)
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(links[0][2].election.port()), links[2][0].election.advertise,
		"member 0 calls member 2 back through its own link to it")
}
