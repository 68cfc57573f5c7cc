package zktest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUniquePath_IsValidAndUniquePerCall(t *testing.T) {
	t.Run("sub test/with odd:chars", func(t *testing.T) {
		a, b := UniquePath(t), UniquePath(t)
		assert.NotEqual(t, a, b)
		assert.Regexp(t, regexp.MustCompile(`^/zktest/TestUniquePath_IsValidAndUniquePerCall_sub_test_with_odd_chars-[0-9a-f]{16}$`), a)
	})
}

func TestServers_SupportsTTLAndReapsContainers(t *testing.T) {
	s := connect(t, Servers(t), 10*time.Second)
	path := UniquePath(t)
	ensurePath(t, s.Conn, "/zktest")

	_, err := s.CreateTTL(path+"-ttl", nil, zk.FlagTTL, zk.WorldACL(zk.PermAll), time.Minute)
	require.NoError(t, err, "TTL nodes need extendedTypesEnabled=true")

	_, err = s.CreateContainer(path, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = s.Create(path+"/child", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, s.Delete(path+"/child", -1))
	assert.Eventually(t, func() bool {
		ok, _, err := s.Exists(path)
		return err == nil && !ok
	}, 10*time.Second, 100*time.Millisecond, "an empty container is reaped within seconds")
}

func TestPacketsReceived_CountsRequests(t *testing.T) {
	servers := Servers(t)
	addr := strings.Split(servers, ",")[0]
	s := connect(t, addr, 10*time.Second)
	before := PacketsReceived(t, addr)
	for range 5 {
		_, _, err := s.Exists("/")
		require.NoError(t, err)
	}
	assert.GreaterOrEqual(t, PacketsReceived(t, addr)-before, int64(5))
}

func TestPacketsReceived_SumsAnEnsemble(t *testing.T) {
	t.Parallel()
	e := NewEnsemble(t, 2)
	s := connect(t, e.ConnectString(), 10*time.Second)
	before := PacketsReceived(t, e.ConnectString())
	for range 5 {
		_, _, err := s.Exists("/")
		require.NoError(t, err)
	}
	after := PacketsReceived(t, e.ConnectString())
	assert.GreaterOrEqual(t, after-before, int64(5))
	assert.Less(t, after-before, int64(10), "one client's packets, not counted twice")
}
