package discovery_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// A spec parses into Curator's parts: variables trimmed, literal text as
// it is, no empty parts, and the brace variables {[} and {]}.
func TestParseURISpec_SplitsLiteralsAndVariablesAsCurator(t *testing.T) {
	v := func(s string) discovery.URIPart { return discovery.URIPart{Value: s, Variable: true} }
	l := func(s string) discovery.URIPart { return discovery.URIPart{Value: s} }
	for spec, want := range map[string][]discovery.URIPart{
		"":                            {},
		"plain text":                  {l("plain text")},
		"{scheme}://{address}:{port}": {v("scheme"), l("://"), v("address"), l(":"), v("port")},
		"{a}{b}c d{ e }":              {v("a"), v("b"), l("c d"), v("e")},
		"x{}y{ }":                     {l("x"), l("y"), v("")},
		"{[}json{]} ":                 {v("["), l("json"), v("]"), l(" ")},
	} {
		got, err := discovery.ParseURISpec(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, want, got.Parts, spec)
	}
	for _, bad := range []string{"{", "}", "{a{b}}", "a}", "{a", "{a}}"} {
		_, err := discovery.ParseURISpec(bad)
		assert.ErrorIs(t, err, discovery.ErrInvalidArgument, bad)
	}
}

// Building fills the instance's fields, https with an SSL port, and the
// caller's variables over them, as Curator's UriSpec.build.
func TestBuild_FillsTheInstancesFieldsAndTheCallersVariables(t *testing.T) {
	s := spec(t, "{scheme}://{address}:{port}/{ssl-port}/{name}/{id}/{registration-time-utc}/{service-type}/{[}{x}{]}{missing}")
	inst := &discovery.Instance[any]{
		Name: "svc", ID: "id1", Address: "10.1.2.3", Port: intp(80), RegistrationTimeUTC: 42, ServiceType: discovery.DynamicSequential, URISpec: s,
	}
	assert.Equal(t, "http://10.1.2.3:80//svc/id1/42/dynamic_sequential/{}", inst.BuildURI(nil))
	inst.SSLPort = intp(443)
	assert.Equal(t, "https://10.1.2.3:80/443/svc/id1/42/dynamic_sequential/{7}", inst.BuildURI(map[string]any{"x": 7}))
	assert.Equal(t, "ftp://:80/443/svc/id1/42/dynamic_sequential/{}",
		discovery.Build(s, inst, map[string]any{"scheme": "ftp", "address": nil}))
	assert.Equal(t, "http://://////{}", s.Build(nil))
	assert.Equal(t, "http://:////0/dynamic/{}", discovery.Build(s, &discovery.Instance[any]{}, nil))
	assert.Equal(t, "", (&discovery.Instance[any]{}).BuildURI(nil))
	assert.Equal(t, "{scheme}://{address}:{port}/{ssl-port}/{name}/{id}/{registration-time-utc}/{service-type}/{[}{x}{]}{missing}", s.String())
}
