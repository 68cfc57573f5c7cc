package discovery_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

func marshal[T any](t *testing.T, inst *discovery.Instance[T], opts ...discovery.Option) string {
	t.Helper()
	c, err := discovery.NewCodec[T](opts...)
	require.NoError(t, err)
	out, err := c.Marshal(inst)
	require.NoError(t, err)
	return string(out)
}

// An instance made in Go is written as Curator writes the same instance:
// the goldens, byte for byte, with the payload's class from
// WithPayloadClass, or the one Jackson reads the value as by default.
func TestCodec_NewInstancesAreWrittenAsCuratorWritesThem(t *testing.T) {
	dynamic := &discovery.Instance[InstanceDetails]{
		Name: "orders", ID: "6f1c2a3e-8b4d-4c1a-9e2f-0a1b2c3d4e5f", Address: "10.0.0.7", Port: intp(8080),
		Payload:             InstanceDetails{Description: "orders API", Weight: 3},
		RegistrationTimeUTC: 1732600000123, URISpec: spec(t, "{scheme}://{address}:{port}"),
	}
	assert.Equal(t, string(golden(t, "dynamic.json")),
		marshal(t, dynamic, discovery.WithPayloadClass("org.example.InstanceDetails"), discovery.WithEnabledField()))

	compatible := &discovery.Instance[*InstanceDetails]{
		Name: "orders", ID: "0b9e8f7a-6d5c-4b3a-8291-f0e1d2c3b4a5", Address: "10.0.0.8", Port: intp(8080), SSLPort: intp(8443),
		Payload:             &InstanceDetails{Description: "orders API, canary", Weight: 1},
		RegistrationTimeUTC: 1732600000789, ServiceType: discovery.DynamicSequential,
		URISpec: spec(t, "{scheme}://{address}:{ssl-port}"),
		// Lost in the compatible mode, as in Curator's.
		Disabled: true,
	}
	assert.Equal(t, string(golden(t, "compatible.json")),
		marshal(t, compatible, discovery.WithPayloadClass("org.example.InstanceDetails")))

	static := &discovery.Instance[*InstanceDetails]{
		Name: "config", ID: "cfg-1", Address: "config.internal", SSLPort: intp(8443), ServiceType: discovery.Static,
	}
	assert.Equal(t, string(golden(t, "static.json")), marshal(t, static, discovery.WithPayloadClass("org.example.InstanceDetails")))

	disabled := &discovery.Instance[string]{
		Name: "search", ID: "search-2", Address: "10.0.0.9", Port: intp(9200), SSLPort: intp(9243),
		Payload: "read-only replica", RegistrationTimeUTC: 1732600000456, ServiceType: discovery.Permanent, Disabled: true,
	}
	assert.Equal(t, string(golden(t, "disabled.json")), marshal(t, disabled, discovery.WithEnabledField()))
	assert.Equal(t, string(golden(t, "disabled.json")),
		marshal(t, disabled, discovery.WithEnabledField(), discovery.WithPayloadClass("java.lang.String")))

	uris := &discovery.Instance[[]string]{
		Name: "billing", ID: "billing-1", Address: "billing.internal", Port: intp(7000), SSLPort: intp(7443),
		Payload: []string{"eu", "us"}, RegistrationTimeUTC: 1732600002000,
		URISpec: spec(t, "{scheme}://{address}:{ssl-port}/{[}api{]}/{version}/{name}?id={id}"),
	}
	assert.Equal(t, string(golden(t, "urispec.json")), marshal(t, uris, discovery.WithEnabledField()))

	long := &discovery.Instance[int64]{
		Name: "queue", ID: "queue-1", Address: "10.0.0.12", Port: intp(5672), Payload: 5000000000, RegistrationTimeUTC: 1732600004000,
	}
	assert.Equal(t, string(golden(t, "long.json")), marshal(t, long))

	assert.Equal(t, string(golden(t, "empty.out.json")), marshal(t, &discovery.Instance[*InstanceDetails]{}))

	escapes := &discovery.Instance[string]{
		Name: "café", ID: "a\"b\\c/d<e>&\x01\t\n\b\f\r\x1f\x7f é ☃ 𝄞",
		Payload: "</script> \u2028", RegistrationTimeUTC: -1,
	}
	assert.Equal(t, string(golden(t, "escapes.json")), marshal(t, escapes))
	withClass := &discovery.Instance[map[string]string]{Payload: map[string]string{"k": "\x01\u2028𝄞\ufffd\"\\/<"}}
	assert.Contains(t, marshal(t, withClass, discovery.WithPayloadClass("org.example.P")),
		"\"payload\":{\"@class\":\"org.example.P\",\"k\":\"\\u0001\u2028\\uD834\\uDD1E\ufffd\\\"\\\\/<\"}")
}

// The Java type information Jackson writes for a payload depends on its
// class and JSON type: bare for String, Integer, Double and Boolean of
// their own JSON type, an "@class" property for an object, a wrapper
// array otherwise.
func TestCodec_PayloadTypeInformationFollowsJackson(t *testing.T) {
	payload := func(v any, opts ...discovery.Option) string {
		out := marshal(t, &discovery.Instance[any]{Payload: v}, opts...)
		var doc struct{ Payload json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		return string(doc.Payload)
	}
	cls := discovery.WithPayloadClass
	assert.Equal(t, `null`, payload(nil))
	assert.Equal(t, `"s"`, payload("s"))
	assert.Equal(t, `true`, payload(true))
	assert.Equal(t, `7`, payload(7))
	assert.Equal(t, `-2147483648`, payload(-1<<31))
	assert.Equal(t, `["java.lang.Long",2147483648]`, payload(1<<31))
	assert.Equal(t, `1.5`, payload(1.5))
	assert.Equal(t, `["java.lang.Long",7]`, payload(7, cls("java.lang.Long")))
	assert.Equal(t, `7.0`, payload(7.0, cls("java.lang.Double")))
	assert.Equal(t, `-2.5`, payload(-2.5, cls("java.lang.Double")))
	assert.Equal(t, `["org.example.Color","RED"]`, payload("RED", cls("org.example.Color")))
	assert.Equal(t, `{"@class":"java.util.LinkedHashMap"}`, payload(map[string]int{}))
	assert.Equal(t, `{"@class":"org.example.P","a":1}`, payload(map[string]int{"a": 1}, cls("org.example.P")))
	assert.Equal(t, `["java.util.ArrayList",[1,2]]`, payload([]int{1, 2}))
	assert.Equal(t, `["java.util.HashSet",[]]`, payload([]int{}, cls("java.util.HashSet")))
}

// A payload is read in each form Jackson reads for Curator's payload
// property: the "@class" property anywhere in the object, a wrapper array,
// or bare.
func TestCodec_ReadsEveryPayloadForm(t *testing.T) {
	c, err := discovery.NewCodec[InstanceDetails]()
	require.NoError(t, err)
	want := InstanceDetails{Description: "d", Weight: 2}
	for doc, class := range map[string]string{
		`{"payload":{"@class":"org.example.InstanceDetails","description":"d","weight":2}}`: "org.example.InstanceDetails",
		`{"payload":{"description":"d","@class":"org.example.InstanceDetails","weight":2}}`: "org.example.InstanceDetails",
		`{"payload":["org.example.InstanceDetails",{"description":"d","weight":2}]}`:        "org.example.InstanceDetails",
		`{"payload":{"description":"d","weight":2}}`:                                        "",
	} {
		inst, err := c.Unmarshal([]byte(doc))
		require.NoError(t, err, doc)
		assert.Equal(t, want, inst.Payload, doc)
		assert.Equal(t, class, inst.PayloadClass(), doc)
	}
}

// A read, modify and write keeps the fields Curator does not know, where
// they were, and the payload as it was read while the payload is
// unchanged, even fields of it the Go type lacks; a changed payload is
// written anew, with the class it was read with.
func TestCodec_ReadModifyWriteKeepsWhatItDoesNotKnow(t *testing.T) {
	type thin struct {
		Description string `json:"description"`
	}
	c, err := discovery.NewCodec[thin](discovery.WithEnabledField())
	require.NoError(t, err)
	inst, err := c.Unmarshal(golden(t, "unknown.json"))
	require.NoError(t, err)
	inst.Port = intp(8081)
	inst.Disabled = true
	out, err := c.Marshal(inst)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"orders","id":"orders-3","address":"10.0.0.10","port":8081,"sslPort":null,`+
		`"payload":{"@class":"org.example.InstanceDetails","description":"from a newer writer","weight":2},`+
		`"registrationTimeUTC":1732600001000,"serviceType":"DYNAMIC","uriSpec":null,"enabled":false,`+
		`"zone":"eu-west-1b","tags":["blue","canary"],"limits":{"rps":500,"burst":null}}`, string(out))

	inst.Payload.Description = "changed"
	out, err = c.Marshal(inst)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"payload":{"@class":"org.example.InstanceDetails","description":"changed"},`)
	assert.Contains(t, string(out), `"enabled":false,"zone":"eu-west-1b",`)

	// A payload read bare as a natural Java type stays one when changed,
	// whatever class the codec writes new payloads with.
	colors, err := discovery.NewCodec[string](discovery.WithPayloadClass("org.example.Color"))
	require.NoError(t, err)
	str, err := colors.Unmarshal([]byte(`{"payload":"hey"}`))
	require.NoError(t, err)
	str.Payload = "ho"
	out, err = colors.Marshal(str)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"payload":"ho",`)
	assert.Contains(t, marshal(t, &discovery.Instance[string]{Payload: "RED"}, discovery.WithPayloadClass("org.example.Color")),
		`"payload":["org.example.Color","RED"],`)

	// A copy keeps the memory; the compatible mode drops enabled only.
	compat, err := discovery.NewCodec[thin]()
	require.NoError(t, err)
	cp := *inst
	out, err = compat.Marshal(&cp)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"uriSpec":null,"zone":"eu-west-1b",`)
}

// What a document says is null, where Go's zero value would be written
// otherwise, is written back as null until the field is set; what was
// read as empty, where Go's empty would be written as null, likewise.
func TestCodec_KeepsNullsAndEmptiesAsRead(t *testing.T) {
	c, err := discovery.NewCodec[InstanceDetails](discovery.WithEnabledField())
	require.NoError(t, err)
	inst, err := c.Unmarshal(golden(t, "nulls.json"))
	require.NoError(t, err)
	assert.Equal(t, InstanceDetails{}, inst.Payload)
	out, err := c.Marshal(inst)
	require.NoError(t, err)
	assert.Equal(t, string(golden(t, "nulls.json")), string(out))

	inst.Name, inst.ServiceType, inst.Payload.Weight = "named", discovery.Static, 1
	out, err = c.Marshal(inst)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"named","id":"nulls-1","address":"","port":null,"sslPort":null,`+
		`"payload":{"@class":"java.util.LinkedHashMap","description":"","weight":1},"registrationTimeUTC":0,`+
		`"serviceType":"STATIC","uriSpec":{"parts":[]},"enabled":true}`, string(out))
}

// Field names inside the uri spec match exactly, as Jackson's: others are
// ignored, as Jackson ignores them; a null part or a part's missing field
// is Curator's default.
func TestCodec_URISpecFieldsMatchExactly(t *testing.T) {
	c, err := discovery.NewCodec[any]()
	require.NoError(t, err)
	inst, err := c.Unmarshal([]byte(`{"uriSpec":{"Parts":[{"value":"x"}]}}`))
	require.NoError(t, err)
	assert.Equal(t, &discovery.URISpec{Parts: []discovery.URIPart{}}, inst.URISpec)
	inst, err = c.Unmarshal([]byte(`{"uriSpec":{"parts":[{"Value":"x","variable":true,"other":1},null,{"value":null}]}}`))
	require.NoError(t, err)
	assert.Equal(t, []discovery.URIPart{{Variable: true}, {}, {}}, inst.URISpec.Parts)
}

// Jackson reads a null enabled, a Java boolean, as false; a missing one
// is Curator's default, true.
func TestCodec_EnabledNullIsFalseAndMissingIsTrue(t *testing.T) {
	c, err := discovery.NewCodec[any]()
	require.NoError(t, err)
	inst, err := c.Unmarshal([]byte(`{"enabled":null}`))
	require.NoError(t, err)
	assert.True(t, inst.Disabled)
	inst, err = c.Unmarshal([]byte(`{"name":"x"}`))
	require.NoError(t, err)
	assert.False(t, inst.Disabled)
}

// What is not an instance as Curator writes one is ErrMalformedInstance.
func TestCodec_RefusesWhatIsNotAnInstance(t *testing.T) {
	c, err := discovery.NewCodec[InstanceDetails]()
	require.NoError(t, err)
	for _, doc := range []string{
		``, `null`, `[]`, `"x"`, `{`, `{"name":1}`, `{"id":true}`, `{"address":{}}`,
		`{"port":"80"}`, `{"port":1.5}`, `{"port":2147483648}`, `{"sslPort":[]}`,
		`{"registrationTimeUTC":"0"}`, `{"registrationTimeUTC":9223372036854775808}`,
		`{"serviceType":"dynamic"}`, `{"serviceType":"OTHER"}`, `{"uriSpec":[]}`,
		`{"uriSpec":{"parts":{}}}`, `{"uriSpec":{"parts":[{"value":1}]}}`, `{"uriSpec":{"parts":[1]}}`,
		`{"uriSpec":{"parts":[{"variable":"true"}]}}`, `{"enabled":"true"}`,
		`{"payload":"not an object"}`, `{"payload":["org.example.InstanceDetails","x"]}`,
		`{} {}`, `{}x`,
	} {
		_, err := c.Unmarshal([]byte(doc))
		assert.ErrorIs(t, err, discovery.ErrMalformedInstance, "%q", doc)
	}
}

// A port Java cannot hold, a nil instance, and bad options are
// ErrInvalidArgument.
func TestCodec_RefusesWhatCuratorCouldNotRead(t *testing.T) {
	c, err := discovery.NewCodec[any]()
	require.NoError(t, err)
	_, err = c.Marshal(&discovery.Instance[any]{Port: intp(1 << 31)})
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
	_, err = c.Marshal(&discovery.Instance[any]{SSLPort: intp(-1<<31 - 1)})
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
	_, err = c.Marshal(nil)
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
	for _, name := range []string{"", " ", "a b", `a"b`} {
		_, err = discovery.NewCodec[any](discovery.WithPayloadClass(name))
		assert.ErrorIs(t, err, discovery.ErrInvalidArgument, "%q", name)
	}
	_, err = discovery.NewCodec[any](nil)
	assert.ErrorIs(t, err, discovery.ErrInvalidArgument)
}
