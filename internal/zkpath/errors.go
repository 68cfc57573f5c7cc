package zkpath

import "errors"

// ErrInvalidPath is wrapped by every error that reports a path ZooKeeper
// would reject. The wrapping message names the path and the reason.
var ErrInvalidPath = errors.New("zkpath: invalid path")

// ErrInvalidName is wrapped by every error that reports an invalid single
// node name (one path segment).
var ErrInvalidName = errors.New("zkpath: invalid node name")
