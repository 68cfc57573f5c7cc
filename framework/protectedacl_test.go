package framework_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// The ACL provider is asked for the path of the node a protected create
// makes (…/_c_<uuid>-lock-), as Curator asks, never for the caller's
// (…/lock-), which is created nowhere.
func TestCreateProtected_AsksTheACLProviderForTheProtectedPath(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	acl := framework.ACLFunc(func(p string) []zk.ACL {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p)
		return zk.WorldACL(zk.PermAll)
	})
	c := connect(t, zktest.Servers(t), framework.WithACLProvider(acl))
	dir := zktest.UniquePath(t)
	node, err := c.CreateProtected(testContext(t), dir+"/lock-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)

	mu.Lock()
	defer mu.Unlock()
	assert.NotContains(t, asked, dir+"/lock-", "the caller's path is not a node")
	want := dir + "/_c_" + node.ProtectionID + "-lock-"
	assert.Contains(t, asked, want, "asked for %v", asked)
	assert.True(t, strings.HasPrefix(node.Path, want))
}
