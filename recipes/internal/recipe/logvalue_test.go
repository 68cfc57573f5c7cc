package recipe

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes"
)

func TestClip_CutsLongValuesAtARuneAndSaysTheirLength(t *testing.T) {
	assert.Equal(t, "short", Clip("short"))
	exact := strings.Repeat("a", MaxLogValue)
	assert.Equal(t, exact, Clip(exact))

	long := strings.Repeat("a", MaxLogValue-1) + "é" + strings.Repeat("b", 1<<20)
	got := Clip(long)
	assert.Equal(t, strings.Repeat("a", MaxLogValue-1)+"... (1048777 bytes)", got, "é straddles the cut: it goes whole")
	assert.Less(t, len(got), MaxLogValue+32)
}

func TestErrAttr_ClipsTheErrorsText(t *testing.T) {
	attr := ErrAttr(errors.New(strings.Repeat("x", 1<<20)))
	assert.Equal(t, "err", attr.Key)
	assert.Less(t, len(attr.Value.String()), MaxLogValue+32)
	assert.Nil(t, ErrAttr(nil).Value.Any())
}

func TestSetLogger_RefusesANilLoggerAndSetsAnyOther(t *testing.T) {
	var dst *slog.Logger
	assert.ErrorIs(t, SetLogger(&dst, nil, zkrecipes.ErrInvalidArgument), zkrecipes.ErrInvalidArgument)
	assert.Nil(t, dst)
	l := slog.New(slog.DiscardHandler)
	assert.NoError(t, SetLogger(&dst, l, zkrecipes.ErrInvalidArgument))
	assert.Same(t, l, dst)
}
