package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Codec reads and writes Instances with payloads of type T in the JSON of
// Curator's JsonInstanceSerializer. It is safe for concurrent use.
type Codec[T any] struct {
	opts codecOptions
}

// NewCodec returns a Codec configured by opts; a bad option, or a
// provider's, is ErrInvalidArgument.
func NewCodec[T any](opts ...Option) (*Codec[T], error) {
	o, err := configure(opts, codecPart)
	if err != nil {
		return nil, fmt.Errorf("discovery: codec: %w", err)
	}
	return &Codec[T]{opts: o.codec}, nil
}

// Marshal writes inst as Curator's JsonInstanceSerializer.serialize does:
// one compact JSON object with the fields name, id, address, port,
// sslPort, payload, registrationTimeUTC, serviceType, uriSpec and (with
// WithEnabledField) enabled, in that order, each always present, followed
// by the fields inst was read with that Curator does not know. A port
// outside Java's int is ErrInvalidArgument; a payload that encoding/json
// cannot encode is its error.
func (c *Codec[T]) Marshal(inst *Instance[T]) ([]byte, error) {
	if inst == nil {
		return nil, fmt.Errorf("%w: discovery: nil instance", ErrInvalidArgument)
	}
	doc := inst.doc
	if doc == nil {
		doc = &document{}
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"name":`...)
	b = appendNullable(b, inst.Name, doc.nameNull && inst.Name == "")
	b = append(b, `,"id":`...)
	b = appendNullable(b, inst.ID, doc.idNull && inst.ID == "")
	b = append(b, `,"address":`...)
	b = appendNullable(b, inst.Address, inst.Address == "" && !doc.addressEmpty)
	b, err := appendPorts(b, inst)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"payload":`...)
	payload, err := c.payload(inst.Payload, doc.payload)
	if err != nil {
		return nil, fmt.Errorf("discovery: instance %q: payload: %w", inst.ID, err)
	}
	b = append(b, payload...)
	b = append(b, `,"registrationTimeUTC":`...)
	b = strconv.AppendInt(b, inst.RegistrationTimeUTC, 10)
	b = append(b, `,"serviceType":`...)
	b = appendServiceType(b, inst.ServiceType, doc.typeNull)
	b = append(b, `,"uriSpec":`...)
	b = appendURISpec(b, inst.URISpec)
	if c.opts.enabledField {
		b = append(b, `,"enabled":`...)
		b = strconv.AppendBool(b, !inst.Disabled)
	}
	for _, f := range doc.extra {
		b = append(b, ',')
		b = appendString(b, f.name)
		b = append(b, ':')
		b = append(b, f.raw...)
	}
	return append(b, '}'), nil
}

// appendPorts appends the port and sslPort fields, null for a nil port;
// a port beyond Java's int is ErrInvalidArgument.
func appendPorts[T any](b []byte, inst *Instance[T]) ([]byte, error) {
	for _, p := range []struct {
		name string
		port *int
	}{{"port", inst.Port}, {"sslPort", inst.SSLPort}} {
		b = append(b, `,"`+p.name+`":`...)
		if p.port == nil {
			b = append(b, "null"...)
			continue
		}
		if *p.port < math.MinInt32 || *p.port > math.MaxInt32 {
			return nil, fmt.Errorf("%w: discovery: instance %q: %s %d is not a Java int", ErrInvalidArgument, inst.ID, p.name, *p.port)
		}
		b = strconv.AppendInt(b, int64(*p.port), 10)
	}
	return b, nil
}

// appendServiceType appends the service type: null where the document
// read had null and the type is still unset, Dynamic where it had none.
func appendServiceType(b []byte, t ServiceType, wasNull bool) []byte {
	switch {
	case t != "":
		return appendString(b, string(t))
	case wasNull:
		return append(b, "null"...)
	default:
		return appendString(b, string(Dynamic))
	}
}

// appendURISpec appends spec as Curator's UriSpec serializes: its parts.
func appendURISpec(b []byte, spec *URISpec) []byte {
	if spec == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"parts":[`...)
	for k, p := range spec.Parts {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		b = appendString(b, p.Value)
		b = append(b, `,"variable":`...)
		b = strconv.AppendBool(b, p.Variable)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// payload returns the payload's JSON: the bytes it was read with when it
// still encodes as what was read, else its encoding with the Java type
// information Curator writes.
func (c *Codec[T]) payload(v T, read *payloadDoc) ([]byte, error) {
	value, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	if read != nil {
		var was T
		if err := json.Unmarshal(read.value, &was); err == nil {
			if before, err := encodeJSON(was); err == nil && bytes.Equal(before, value) {
				return read.whole, nil
			}
		}
	}
	if string(value) == "null" {
		return value, nil
	}
	class := c.opts.payloadClass
	switch {
	case read == nil:
	case read.class != "":
		class = read.class
	case read.value[0] != '{' && string(read.value) != "null":
		// A bare string, number or boolean: Java held a String, Integer,
		// Double or Boolean, and keeps a natural type.
		class = ""
	}
	if class == "" {
		class = defaultClass(value)
	}
	if class == "java.lang.Double" && isInteger(value) {
		value = append(value, ".0"...) // else Jackson reads an Integer
	}
	if natural(class, value) {
		return value, nil
	}
	if value[0] == '{' {
		b := append([]byte(`{"@class":`), appendString(nil, class)...)
		if string(value) != "{}" {
			b = append(b, ',')
		}
		return append(b, value[1:]...), nil
	}
	b := append([]byte{'['}, appendString(nil, class)...)
	b = append(b, ',')
	b = append(b, value...)
	return append(b, ']'), nil
}

// encodeJSON is json.Marshal with strings as Jackson writes them.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return jacksonStrings(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})), nil
}

// defaultClass is the class Jackson reads a JSON value bare as, for an
// object Jackson reads without type information (LinkedHashMap), or the
// class Jackson would need to read it as the value's natural Java type.
func defaultClass(value []byte) string {
	switch value[0] {
	case '{':
		return "java.util.LinkedHashMap"
	case '[':
		return "java.util.ArrayList"
	case '"':
		return "java.lang.String"
	case 't', 'f':
		return "java.lang.Boolean"
	}
	if _, err := strconv.ParseInt(string(value), 10, 32); err == nil {
		return "java.lang.Integer"
	}
	if _, err := strconv.ParseInt(string(value), 10, 64); err == nil {
		return "java.lang.Long"
	}
	return "java.lang.Double"
}

// isInteger reports whether a JSON number is written without a fraction
// or exponent.
func isInteger(value []byte) bool {
	return bytes.IndexFunc(value, func(r rune) bool { return !(r == '-' || r >= '0' && r <= '9') }) < 0
}

// natural reports whether Jackson writes a value of class as value bare,
// without type information: String, Integer, Double and Boolean, the
// types it reads back from the JSON type alone.
func natural(class string, value []byte) bool {
	switch class {
	case "java.lang.String":
		return value[0] == '"'
	case "java.lang.Boolean":
		return value[0] == 't' || value[0] == 'f'
	case "java.lang.Integer":
		_, err := strconv.ParseInt(string(value), 10, 32)
		return err == nil
	case "java.lang.Double":
		return (value[0] == '-' || (value[0] >= '0' && value[0] <= '9')) && !isInteger(value)
	}
	return false
}

// Unmarshal reads an instance as Curator's JsonInstanceSerializer.deserialize
// does: fields in any order, each optional (a missing one has the
// default of Curator's no-argument ServiceInstance: enabled, Dynamic),
// null for any of them, and fields Curator does not know, which the
// Instance keeps. The payload may carry its Java class as an "@class"
// property or as a ["class",value] wrapper array, or come bare; it is
// decoded into T by encoding/json. Anything else is ErrMalformedInstance.
// Unmarshal is stricter than Jackson where Curator never writes the
// difference: field names match exactly, a string field must be a JSON
// string and a number an integer (no coercion), and nothing may follow
// the object.
func (c *Codec[T]) Unmarshal(data []byte) (*Instance[T], error) {
	inst, err := c.unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedInstance, err)
	}
	return inst, nil
}

func (c *Codec[T]) unmarshal(data []byte) (*Instance[T], error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return nil, err
	} else if t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	inst := &Instance[T]{ServiceType: Dynamic, doc: &document{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := t.(string) // a key inside an object is always a string
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if err := readField(inst, name, raw); err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the instance's object")
	}
	return inst, nil
}

// readField reads the field name of an instance's document into inst,
// keeping a field Curator does not know for the next write.
func readField[T any](inst *Instance[T], name string, raw json.RawMessage) (err error) {
	doc := inst.doc
	isNull := string(raw) == "null"
	switch name {
	case "name":
		inst.Name, doc.nameNull, err = readString(raw)
	case "id":
		inst.ID, doc.idNull, err = readString(raw)
	case "address":
		inst.Address, _, err = readString(raw)
		doc.addressEmpty = !isNull && inst.Address == ""
	case "port":
		inst.Port, err = readPort(raw)
	case "sslPort":
		inst.SSLPort, err = readPort(raw)
	case "payload":
		inst.Payload, doc.payload, err = readPayload[T](raw)
	case "registrationTimeUTC":
		inst.RegistrationTimeUTC = 0
		if !isNull {
			inst.RegistrationTimeUTC, err = strconv.ParseInt(string(raw), 10, 64)
		}
	case "serviceType":
		inst.ServiceType, doc.typeNull, err = readServiceType(raw)
	case "uriSpec":
		inst.URISpec, err = readURISpec(raw)
	case "enabled":
		// A null for Java's boolean is false, as Jackson reads it.
		inst.Disabled = true
		if !isNull {
			var enabled bool
			err = json.Unmarshal(raw, &enabled)
			inst.Disabled = !enabled
		}
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return err
		}
		doc.setExtra(name, buf.Bytes())
	}
	return err
}

// setExtra keeps an unknown field; of a repeated one, the last value at
// the first place.
func (d *document) setExtra(name string, raw []byte) {
	for k := range d.extra {
		if d.extra[k].name == name {
			d.extra[k].raw = raw
			return
		}
	}
	d.extra = append(d.extra, field{name: name, raw: raw})
}

func readString(raw json.RawMessage) (s string, isNull bool, err error) {
	if string(raw) == "null" {
		return "", true, nil
	}
	if raw[0] != '"' {
		return "", false, errors.New("not a string")
	}
	err = json.Unmarshal(raw, &s)
	return s, false, err
}

func readPort(raw json.RawMessage) (*int, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil {
		return nil, errors.New("not a Java int")
	}
	p := int(n)
	return &p, nil
}

func readServiceType(raw json.RawMessage) (ServiceType, bool, error) {
	s, isNull, err := readString(raw)
	if err != nil || isNull {
		return "", isNull, err
	}
	if t := ServiceType(s); t.valid() {
		return t, false, nil
	}
	return "", false, fmt.Errorf("unknown service type %q", s)
}

func readURISpec(raw json.RawMessage) (*URISpec, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	spec, err := readObject(raw)
	if err != nil {
		return nil, err
	}
	s := &URISpec{Parts: []URIPart{}}
	parts, ok := spec["parts"]
	if !ok || string(parts) == "null" {
		return s, nil
	}
	var list []json.RawMessage
	if parts[0] != '[' {
		return nil, errors.New("parts: not an array")
	}
	if err := json.Unmarshal(parts, &list); err != nil {
		return nil, err
	}
	for _, p := range list {
		var part URIPart
		if string(p) != "null" {
			fields, err := readObject(p)
			if err != nil {
				return nil, fmt.Errorf("part: %w", err)
			}
			if v, ok := fields["value"]; ok {
				if part.Value, _, err = readString(v); err != nil {
					return nil, fmt.Errorf("part value: %w", err)
				}
			}
			if v, ok := fields["variable"]; ok && string(v) != "null" {
				if err := json.Unmarshal(v, &part.Variable); err != nil {
					return nil, fmt.Errorf("part variable: %w", err)
				}
			}
		}
		s.Parts = append(s.Parts, part)
	}
	return s, nil
}

// readObject reads a JSON object's fields by their exact names (the last
// of a repeated one), as Jackson matches them, not encoding/json's
// case-insensitive way.
func readObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if raw[0] != '{' {
		return nil, errors.New("not an object")
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}

// readPayload decodes a payload in any of the forms Jackson reads for
// Curator's payload property: null, {"@class":C,...} (the property may
// be anywhere in the object), ["C",value], or a bare value.
func readPayload[T any](raw json.RawMessage) (T, *payloadDoc, error) {
	var v T
	var whole bytes.Buffer
	if err := json.Compact(&whole, raw); err != nil {
		return v, nil, err
	}
	pd := &payloadDoc{whole: whole.Bytes(), value: whole.Bytes()}
	switch raw[0] {
	case '{':
		class, rest, err := splitClass(raw)
		if err != nil {
			return v, nil, err
		}
		pd.class, pd.value = class, rest
	case '[':
		var wrapper []json.RawMessage
		if err := json.Unmarshal(raw, &wrapper); err != nil {
			return v, nil, err
		}
		if len(wrapper) == 2 && wrapper[0][0] == '"' {
			if err := json.Unmarshal(wrapper[0], &pd.class); err != nil {
				return v, nil, err
			}
			var value bytes.Buffer
			if err := json.Compact(&value, wrapper[1]); err != nil {
				return v, nil, err
			}
			pd.value = value.Bytes()
		}
	}
	if err := json.Unmarshal(pd.value, &v); err != nil {
		return v, nil, err
	}
	return v, pd, nil
}

// splitClass takes the "@class" property out of a JSON object: its value
// and the object without it, compact.
func splitClass(raw json.RawMessage) (string, []byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return "", nil, err
	}
	class := ""
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", nil, err
		}
		name := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", nil, err
		}
		if name == "@class" && class == "" && value[0] == '"' {
			if err := json.Unmarshal(value, &class); err != nil {
				return "", nil, err
			}
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, name)
		out = append(out, ':')
		var buf bytes.Buffer
		if err := json.Compact(&buf, value); err != nil {
			return "", nil, err
		}
		out = append(out, buf.Bytes()...)
	}
	return class, append(out, '}'), nil
}
