package framework

import (
	"fmt"
)

// MaxRequestSize is the most bytes of path and data one request may carry.
// A ZooKeeper server reads no packet over its jute.maxbuffer, 1 MB less one
// byte by default, and closes the connection of a client that sends one:
// every hold of that client would then be suspended. 16 KiB are left for
// the request's header and ACL.
const MaxRequestSize = 0xfffff - 16<<10

// checkSize refuses a request that the server would not read.
func checkSize(path string, data []byte) error {
	if n := len(path) + len(data); n > MaxRequestSize {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, n)
	}
	return nil
}
