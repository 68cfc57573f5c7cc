package zktesting

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSASLJavaOpts_WritesAJAASServerSectionOfEveryUser(t *testing.T) {
	dir := t.TempDir()
	opts, err := saslJavaOpts(dir, map[string]string{"kafka": `a"b\c`, "bob": "bobsecret"})
	require.NoError(t, err)
	require.Len(t, opts, 2)
	assert.Equal(t, "-Djava.security.auth.login.config="+dir+"/jaas.conf", opts[0])
	jaas, err := os.ReadFile(dir + "/jaas.conf")
	require.NoError(t, err)
	assert.Equal(t, `Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_bob="bobsecret"
  user_kafka="a\"b\\c";
};
`, string(jaas))

	none, err := saslJavaOpts(dir, nil)
	require.NoError(t, err)
	assert.Empty(t, none, "no users, no SASL")
}

func TestSASLJavaOpts_RefusesWhatAJAASFileCannotHold(t *testing.T) {
	for _, users := range []map[string]string{{"bo b": "x"}, {"bob=": "x"}, {"bob": "line\nbreak"}} {
		_, err := saslJavaOpts(t.TempDir(), users)
		assert.ErrorIs(t, err, ErrInvalidArgument, users)
	}
}
