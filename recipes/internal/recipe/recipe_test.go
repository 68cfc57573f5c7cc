package recipe

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

var errInvalid = errors.New("invalid")

func TestCheckPath(t *testing.T) {
	c, err := framework.New([]string{"127.0.0.1:1"}) // never connects; no I/O is needed
	require.NoError(t, err)
	defer c.Close()
	assert.NoError(t, CheckPath(c, "/a/b", errInvalid))
	for _, p := range []string{"", "a", "/", "/a/", "/a//b"} {
		assert.ErrorIs(t, CheckPath(c, p, errInvalid), errInvalid, "%q", p)
	}
	assert.ErrorIs(t, CheckPath(nil, "/a", errInvalid), errInvalid)
}

type opts struct{ n int }

func TestOptions(t *testing.T) {
	add := func(n int) func(*opts) error { return func(o *opts) error { o.n += n; return nil } }
	o, err := Options([]func(*opts) error{add(1), add(2)}, errInvalid)
	require.NoError(t, err)
	assert.Equal(t, 3, o.n)
	_, err = Options([]func(*opts) error{add(1), nil}, errInvalid)
	assert.ErrorIs(t, err, errInvalid)
	own := errors.New("own")
	_, err = Options([]func(*opts) error{func(*opts) error { return own }}, errInvalid)
	assert.Same(t, own, err)
}

func TestSetErrorPolicy_TakesFrameworksTwoPoliciesAndRefusesTheRest(t *testing.T) {
	var p framework.ErrorPolicy
	assert.NoError(t, SetErrorPolicy(&p, framework.SessionErrorPolicy, errInvalid))
	assert.Equal(t, framework.SessionErrorPolicy, p)
	assert.NoError(t, SetErrorPolicy(&p, framework.StandardErrorPolicy, errInvalid))
	assert.Equal(t, framework.StandardErrorPolicy, p)
	assert.ErrorIs(t, SetErrorPolicy(&p, framework.ErrorPolicy(9), errInvalid), errInvalid)
	assert.Equal(t, framework.StandardErrorPolicy, p, "left as it was")
}

func TestSetMaxHold_RefusesABoundThatIsNotPositive(t *testing.T) {
	var d time.Duration
	assert.ErrorIs(t, SetMaxHold(&d, 0, errInvalid), errInvalid)
	assert.ErrorIs(t, SetMaxHold(&d, -time.Second, errInvalid), errInvalid)
	assert.Zero(t, d)
	assert.NoError(t, SetMaxHold(&d, time.Second, errInvalid))
	assert.Equal(t, time.Second, d)
}

// An option of one part is refused by another's constructor; one of two
// parts by neither of them.
func TestParts_RefuseAnOptionOfAnotherPart(t *testing.T) {
	var p Parts
	require.NoError(t, p.Refuse("a Latch", errInvalid), "nothing given")
	p.Configures("WithID", "a Latch", "a Selector")
	require.NoError(t, p.Refuse("a Latch", errInvalid))
	require.NoError(t, p.Refuse("a Selector", errInvalid))
	require.ErrorIs(t, p.Refuse("an Observer", errInvalid), errInvalid)
	p.Configures("WithCloseMode", "a Latch")
	require.ErrorIs(t, p.Refuse("a Selector", errInvalid), errInvalid)
}
