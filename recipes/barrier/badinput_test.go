package barrier_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

func TestNew_RejectsBadInputWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	before := requests()
	tests := []struct {
		name string
		new  func() (any, error)
	}{
		{"nil client", func() (any, error) { return barrier.New(nil, "/b") }},
		{"empty path", func() (any, error) { return barrier.New(c, "") }},
		{"relative path", func() (any, error) { return barrier.New(c, "b") }},
		{"trailing slash", func() (any, error) { return barrier.New(c, "/b/") }},
		{"empty element", func() (any, error) { return barrier.New(c, "/a//b") }},
		{"root", func() (any, error) { return barrier.New(c, "/") }},
		{"nil option", func() (any, error) { return barrier.New(c, "/b", nil) }},
		{"nil logger", func() (any, error) { return barrier.New(c, "/b", barrier.WithLogger(nil)) }},
		{"double, nil client", func() (any, error) { return barrier.NewDouble(nil, "/d", 2) }},
		{"double, odd path", func() (any, error) { return barrier.NewDouble(c, "/d/../e", 2) }},
		{"double, root", func() (any, error) { return barrier.NewDouble(c, "/", 2) }},
		{"double, no members", func() (any, error) { return barrier.NewDouble(c, "/d", 0) }},
		{"double, negative members", func() (any, error) { return barrier.NewDouble(c, "/d", -2) }},
		{"double, nil logger", func() (any, error) { return barrier.NewDouble(c, "/d", 2, barrier.WithLogger(nil)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.new()
			require.ErrorIs(t, err, barrier.ErrInvalidArgument)
		})
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}
