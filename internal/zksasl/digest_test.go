package zksasl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example of RFC 2831, section 4: the response and the rspauth that
// chris's password "secret" gives.
func TestDigest_ComputesTheResponseAndRspauthOfRFC2831sExample(t *testing.T) {
	d := &digestClient{user: "chris", password: "secret"}
	d.commit("elwood.innosoft.com", "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk", "imap/elwood.innosoft.com")
	assert.Equal(t, "d388dad90d4bbd760a152321f2143af7", d.digest("AUTHENTICATE:"+d.uri))
	assert.Equal(t, "ea40f60335c427b5527b84dbabcdfffd", d.digest(":"+d.uri))
}

func TestDigest_ParsesQuotedAndBareDirectives(t *testing.T) {
	got, err := parseDirectives(`realm="zk-sasl-md5",nonce="a\"b,c",qop="auth,auth-int",charset=utf-8,algorithm=md5-sess`)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"realm": "zk-sasl-md5", "nonce": `a"b,c`, "qop": "auth,auth-int",
		"charset": "utf-8", "algorithm": "md5-sess"}, got)
	_, err = parseDirectives(`nonce="open`)
	require.ErrorIs(t, err, errMechanism)
}

// A server that answers with a wrong rspauth does not know the password:
// the authentication does not complete.
func TestDigest_RefusesAServerWhoseRspauthDoesNotMatch(t *testing.T) {
	d := &digestClient{user: "bob", password: "bobsecret"}
	resp, err := d.step([]byte(`realm="zk-sasl-md5",nonce="n",qop="auth",charset=utf-8,algorithm=md5-sess`))
	require.NoError(t, err)
	assert.Contains(t, string(resp), `digest-uri="zookeeper/zk-sasl-md5"`)
	_, err = d.step([]byte("rspauth=00000000000000000000000000000000"))
	require.ErrorIs(t, err, errMechanism)
	assert.False(t, d.complete)
}
