package framework_test

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestMultiRead_ReadsInOneRequestEachOnItsOwn(t *testing.T) {
	for _, lacking := range []bool{false, true} {
		name := "multiRead"
		if lacking {
			name = "server without multiRead"
		}
		t.Run(name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			if lacking {
				proxy.MakeOld()
			}
			c := connect(t, proxy.Addr())
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			_, err := c.Create(ctx, path+"/a", []byte("A"), framework.Persistent)
			require.NoError(t, err)
			_, err = c.Create(ctx, path+"/b", nil, framework.Persistent)
			require.NoError(t, err)
			before := proxy.Requests(zktest.OpGetData)

			res, err := c.MultiRead(ctx, framework.GetOp(path+"/a"), framework.ChildrenOp(path),
				framework.GetOp(path+"/missing"), framework.ChildrenOp(path+"/b"))
			require.NoError(t, err)
			require.Len(t, res, 4)
			assert.Equal(t, []byte("A"), res[0].Data)
			assert.Equal(t, int32(1), res[0].Stat.DataLength)
			assert.ElementsMatch(t, []string{"a", "b"}, res[1].Children)
			assert.ErrorIs(t, res[2].Err, zk.ErrNoNode)
			assert.Equal(t, []string{}, res[3].Children)
			if lacking {
				assert.Equal(t, before+2, proxy.Requests(zktest.OpGetData), "one read at a time")
				assert.Equal(t, int64(0), proxy.Requests(zktest.OpMultiRead))
			} else {
				assert.Equal(t, int64(1), proxy.Requests(zktest.OpMultiRead))
				assert.Equal(t, before, proxy.Requests(zktest.OpGetData))
			}
		})
	}
}

func TestMultiRead_InANamespace(t *testing.T) {
	root := zktest.UniquePath(t)
	ctx := testContext(t)
	require.NoError(t, connect(t, zktest.Servers(t)).EnsurePath(ctx, root))
	c := connect(t, zktest.Servers(t), framework.WithNamespace(root))
	_, err := c.Create(ctx, "/x", []byte("x"), framework.Persistent)
	require.NoError(t, err)
	res, err := c.MultiRead(ctx, framework.GetOp("/x"), framework.ChildrenOp("/"))
	require.NoError(t, err)
	assert.Equal(t, []byte("x"), res[0].Data)
	assert.Equal(t, []string{"x"}, res[1].Children)
}
