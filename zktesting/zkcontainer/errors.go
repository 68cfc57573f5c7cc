package zkcontainer

import "github.com/zkrecipes/zkrecipes"

// ErrClosed reports a call on a server after Close. It is the library's
// shared sentinel, zkrecipes.ErrClosed, as zktesting's is.
var ErrClosed = zkrecipes.ErrClosed
