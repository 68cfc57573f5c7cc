package recipe

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Every recipe constructor checks its path with CheckPath: it refuses
// exactly the paths ZooKeeper refuses, and the root, with the sentinel it
// is given.
func FuzzCheckPath(f *testing.F) {
	c, err := framework.New([]string{"127.0.0.1:1"}) // never connects; no I/O is needed
	require.NoError(f, err)
	f.Cleanup(func() { _ = c.Close() })
	for _, p := range []string{"/", "", "/a", "a", "/a/", "//", "/a/./b", "/a\x00", "/a\n", "/\U0001F512", "/zk/\u00fc"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := CheckPath(c, p, errInvalid)
		if zkpath.Validate(p) != nil || p == "/" {
			require.ErrorIs(t, err, errInvalid)
			return
		}
		require.NoError(t, err)
	})
}
