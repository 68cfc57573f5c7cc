package discovery_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

func fuzzSeeds(f *testing.F) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(f, err)
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{``, `null`, `{`, `{"payload":["a"]}`, `{"payload":["a",1,2]}`, `{"payload":{"@class":1}}`,
		`{"payload":{"@class":"a","@class":"b"}}`, `{"x":1,"x":2}`, `{"name":"a","name":null}`, `{"uriSpec":{"parts":[null]}}`} {
		f.Add([]byte(s))
	}
}

// fuzzUnmarshal checks, for a payload type T, that Unmarshal either
// refuses data with ErrMalformedInstance or reads an instance that Marshal
// writes, that what it writes reads back, and that writing that again
// gives the same bytes.
func fuzzUnmarshal[T any](t *testing.T, data []byte, opts ...discovery.Option) {
	c, err := discovery.NewCodec[T](opts...)
	require.NoError(t, err)
	inst, err := c.Unmarshal(data)
	if err != nil {
		require.ErrorIs(t, err, discovery.ErrMalformedInstance)
		return
	}
	out, err := c.Marshal(inst)
	require.NoError(t, err)
	require.True(t, json.Valid(out), "%s", out)
	again, err := c.Unmarshal(out)
	require.NoError(t, err, "%s", out)
	out2, err := c.Marshal(again)
	require.NoError(t, err)
	require.Equal(t, string(out), string(out2))
}

// Unmarshal never panics, and what it reads is written back stably, with
// payloads decoded generically and into a struct.
func FuzzUnmarshal(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzUnmarshal[any](t, data, discovery.WithEnabledField())
		fuzzUnmarshal[json.RawMessage](t, data)
		fuzzUnmarshal[*InstanceDetails](t, data, discovery.WithPayloadClass("org.example.InstanceDetails"))
	})
}

// ParseURISpec never panics, and a spec it accepts, written back with
// String, parses to a spec (whose adjacent literal parts may have merged)
// that String writes and Build fills alike, unless it has a variable of
// no name ("{ }"), which String writes as "{}", no part at all.
func FuzzParseURISpec(f *testing.F) {
	for _, s := range []string{"", "{scheme}://{address}:{port}", "{[}x{]}", "{ a }b", "{", "}", "{{}}", "a{}b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := discovery.ParseURISpec(s)
		if err != nil {
			require.ErrorIs(t, err, discovery.ErrInvalidArgument)
			return
		}
		for _, p := range spec.Parts {
			if p.Variable && p.Value == "" {
				return
			}
		}
		again, err := discovery.ParseURISpec(spec.String())
		require.NoError(t, err)
		require.Equal(t, spec.String(), again.String())
		vars := map[string]any{"a": 1}
		require.Equal(t, spec.Build(vars), again.Build(vars))
	})
}
