package leaderhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/leader/leaderhttp"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Both kinds of participant can be probed.
var (
	_ leaderhttp.Checker = (*leader.Latch)(nil)
	_ leaderhttp.Checker = (*leader.Selector)(nil)
)

// checker is a participant whose health the test sets, and which records
// the maxStale it was asked with.
type checker struct {
	err   error
	asked time.Duration
}

func (c *checker) Healthy(maxStale time.Duration) error {
	c.asked = maxStale
	return c.err
}

func TestHandler_AnswersOKWhileHealthyAnd503WithTheReasonOtherwise(t *testing.T) {
	stuck := fmt.Errorf("%w: the term of /election/_c_x-latch-0000000001 was asked to stop 1s ago and has not", leader.ErrUnhealthy)
	for _, tc := range []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"healthy", nil, http.StatusOK, "ok\n"},
		{"unhealthy", stuck, http.StatusServiceUnavailable, stuck.Error() + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &checker{err: tc.err}
			rec := httptest.NewRecorder()
			leaderhttp.Handler(p, 3*time.Second).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, tc.body, rec.Body.String())
			assert.Equal(t, 3*time.Second, p.asked, "the handler asks with its maxStale")
		})
	}
}
