package framework_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// WithSASL and WithTLS together: bob authenticates inside the TLS
// connection, another certificate without bob's password gets no rights,
// and a wrong password is refused.
func TestSASL_OverWithTLS(t *testing.T) {
	server := zktest.NewServer(t, zktesting.WithTLS(), zktesting.WithSASLUsers(map[string]string{"bob": "bobsecret"}))
	path := bobsNode(t, server.Addr())
	ctx := testContext(t)
	bob := connect(t, server.TLSAddr(), asBob, framework.WithTLS(server.TLS().ClientConfig("billing")))
	data, _, err := bob.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "bob's", string(data))
	_, _, err = connect(t, server.TLSAddr(), framework.WithTLS(server.TLS().ClientConfig("other"))).Get(ctx, path)
	assert.ErrorIs(t, err, zk.ErrNoAuth)
	_, err = framework.Connect(ctx, []string{server.TLSAddr()}, framework.WithSASL("bob", "guess"), framework.WithTLS(server.TLS().ClientConfig("billing")))
	assert.ErrorIs(t, err, framework.ErrAuthFailed)
}
