package reliability_test

import (
	"os"
	"testing"
)

// knownBug skips a test that shows a bug of the library not fixed yet,
// unless RELIABILITY_KNOWN_BUGS=1, so that CI stays green and honest: the
// test states the right behaviour, and the skip message names the bug.
// Remove the call with the fix.
func knownBug(t *testing.T, bug string) {
	t.Helper()
	if os.Getenv("RELIABILITY_KNOWN_BUGS") != "1" {
		t.Skipf("known bug (RELIABILITY_KNOWN_BUGS=1 runs it): %s", bug)
	}
}
