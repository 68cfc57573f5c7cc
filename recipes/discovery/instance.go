package discovery

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ServiceType is the kind of registration of an instance, as Curator's
// ServiceType enum, written by its name.
type ServiceType string

// The service types of Curator's ServiceType enum. The empty ServiceType
// is written as Dynamic, Curator's default, unless it was read as null.
const (
	// Dynamic is an instance whose node is ephemeral: it goes with the
	// session that registered it. Curator's default.
	Dynamic ServiceType = "DYNAMIC"
	// Static is an instance registered by configuration rather than by the
	// running service.
	Static ServiceType = "STATIC"
	// Permanent is an instance whose node is persistent: it stays after
	// the session that registered it.
	Permanent ServiceType = "PERMANENT"
	// DynamicSequential is a dynamic instance whose node is ephemeral and
	// sequential.
	DynamicSequential ServiceType = "DYNAMIC_SEQUENTIAL"
)

// IsDynamic reports whether t is Dynamic or DynamicSequential, as
// Curator's ServiceType.isDynamic. The empty ServiceType counts as
// Dynamic, which it is written as.
func (t ServiceType) IsDynamic() bool {
	return t == Dynamic || t == DynamicSequential || t == ""
}

func (t ServiceType) valid() bool {
	switch t {
	case Dynamic, Static, Permanent, DynamicSequential:
		return true
	}
	return false
}

// Instance is one instance of a service, Curator's ServiceInstance, with a
// payload of type T. Its zero value is what Curator's no-argument
// ServiceInstance is: enabled, of the Dynamic type, with no address, ports,
// payload or uri spec.
//
// An Instance read by a Codec remembers what of the document it does not
// hold in its fields (fields it does not know, a null where Go has a zero
// value, the payload's Java class and its bytes), and a Codec writes that
// back, so that a read, modify and write keeps what other writers put
// there. Copy an Instance by value to keep that memory; a new Instance
// has none.
type Instance[T any] struct {
	// Name is the service's name.
	Name string
	// ID is this instance's id, unique among the service's instances.
	ID string
	// Address is the host name or IP address the service listens on; empty
	// is written as null, Curator's "no address".
	Address string
	// Port is the instance's port, nil for none (null). It must fit a Java
	// int.
	Port *int
	// SSLPort is the instance's TLS port, nil for none (null); with one,
	// a uri spec's {scheme} is https.
	SSLPort *int
	// Payload is the service's own data. A nil pointer, map, slice or
	// interface is written as null; any other value as encoding/json
	// writes it, with the Java class Curator needs (see Codec).
	Payload T
	// RegistrationTimeUTC is when the instance was registered, in
	// milliseconds since the Unix epoch.
	RegistrationTimeUTC int64
	// ServiceType is the kind of registration; empty is written as Dynamic.
	ServiceType ServiceType
	// URISpec is the template of the instance's URI, nil for none (null).
	URISpec *URISpec
	// Disabled is the negation of Curator's enabled field, so that the
	// zero Instance is enabled, as Curator's default. Curator writes
	// enabled only outside its compatible mode (WithEnabledField); an
	// instance read without the field is enabled.
	Disabled bool

	doc *document
}

// document is what a Codec read besides an Instance's fields.
type document struct {
	nameNull, idNull, addressEmpty, typeNull bool
	payload                                  *payloadDoc
	extra                                    []field // fields not of Curator's ServiceInstance, in order
}

type field struct {
	name string
	raw  json.RawMessage // compact
}

// payloadDoc is the payload as read: its Java class ("" when it came
// bare), the value inside any type wrapper, and the whole as written.
type payloadDoc struct {
	class string
	value []byte
	whole []byte
}

// PayloadClass returns the Java class name the payload was read with (the
// "@class" property or the first element of a type wrapper array), or ""
// for a payload that came bare (a string, number, boolean, null, or an
// object without "@class") and for an Instance that was not read.
func (i *Instance[T]) PayloadClass() string {
	if i.doc == nil || i.doc.payload == nil {
		return ""
	}
	return i.doc.payload.class
}

// UnknownFields returns the names of the fields of the document i was read
// from that are not Curator's ServiceInstance's, in their order; a Codec
// writes them back, after the known fields.
func (i *Instance[T]) UnknownFields() []string {
	if i.doc == nil || len(i.doc.extra) == 0 {
		return nil
	}
	names := make([]string, len(i.doc.extra))
	for k, f := range i.doc.extra {
		names[k] = f.name
	}
	return names
}

// BuildURI builds i's URI from its URISpec, as Curator's
// ServiceInstance.buildUriSpec(variables): "" when i has no URISpec. See
// Build for the variables.
func (i *Instance[T]) BuildURI(vars map[string]any) string {
	if i.URISpec == nil {
		return ""
	}
	return Build(i.URISpec, i, vars)
}

// Build fills spec's variables from inst and vars, as Curator's
// UriSpec.build(serviceInstance, variables): {scheme} is "https" when inst
// has an SSLPort and "http" otherwise; {name}, {id}, {address}, {port},
// {ssl-port}, {registration-time-utc} and {service-type} (lower case) are
// inst's, "" when null; {[} and {]} are literal braces; vars, formatted
// with fmt.Sprint, override all of these. A variable with no value, or a
// nil one, is left out. A nil inst gives only the scheme, braces and vars.
func Build[T any](spec *URISpec, inst *Instance[T], vars map[string]any) string {
	local := map[string]string{"[": "{", "]": "}", "scheme": "http"}
	if inst != nil {
		port := func(p *int) string {
			if p == nil {
				return ""
			}
			return strconv.Itoa(*p)
		}
		st := inst.ServiceType
		if st == "" && (inst.doc == nil || !inst.doc.typeNull) {
			st = Dynamic
		}
		local["name"] = inst.Name
		local["id"] = inst.ID
		local["address"] = inst.Address
		local["port"] = port(inst.Port)
		local["ssl-port"] = port(inst.SSLPort)
		local["registration-time-utc"] = strconv.FormatInt(inst.RegistrationTimeUTC, 10)
		local["service-type"] = strings.ToLower(string(st))
		if inst.SSLPort != nil {
			local["scheme"] = "https"
		}
	}
	return spec.build(local, vars)
}
