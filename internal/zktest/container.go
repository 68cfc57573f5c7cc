package zktest

import (
	"context"

	"github.com/zkrecipes/zkrecipes/zktesting/zkcontainer"
)

// startContainer runs a ZooKeeper container for the shared server (the
// image of ZK_IMAGE, see zkcontainer) and returns its address and how to
// terminate it.
func startContainer(ctx context.Context) (string, func() error, error) {
	s, err := zkcontainer.Start(ctx)
	if err != nil {
		return "", nil, err
	}
	return s.Addr(), s.Close, nil
}
