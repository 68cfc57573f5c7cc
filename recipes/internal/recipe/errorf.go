package recipe

import (
	"fmt"
	"strings"
)

// libraryPrefix opens the message of every sentinel the recipes share.
const libraryPrefix = "zkrecipes: "

// Errorf is fmt.Errorf for an error that wraps more than one of the
// library's errors, such as ErrLost together with ErrExpired: the message
// names the library once, at its first mention ("zkrecipes: lost: bound
// passed without renewal"), not at every wrapped sentinel. errors.Is and
// errors.As see every wrapped error as fmt.Errorf's would.
func Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	msg := err.Error()
	i := strings.Index(msg, libraryPrefix)
	if i < 0 {
		return err
	}
	head, rest := msg[:i+len(libraryPrefix)], msg[i+len(libraryPrefix):]
	if !strings.Contains(rest, libraryPrefix) {
		return err
	}
	return &relabeled{msg: head + strings.ReplaceAll(rest, libraryPrefix, ""), err: err}
}

// relabeled is an error with the message of err, retold.
type relabeled struct {
	msg string
	err error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.err }
