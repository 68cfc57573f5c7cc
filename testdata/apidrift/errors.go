package apidrift

import "errors"

// ErrHome is a sentinel where it belongs.
var ErrHome = errors.New("apidrift: home")
