package zktesting

import (
	"bytes"
	"encoding/binary"
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
