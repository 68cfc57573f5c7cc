// Package discovery is Apache Curator's service discovery
// (curator-x-discovery 5.x): a registry of services under a base path,
// each instance a node at <base>/<name>/<id> whose data is the service
// instance as JSON, with the uri spec it carries. A Go process and a Java
// process using Curator's ServiceDiscovery (and its JsonInstanceSerializer)
// register in one registry and find each other.
//
// # The registry
//
// Discovery.Register registers an instance: a Dynamic one (the default) as
// an ephemeral node kept by recipes/node, so that it is registered again in
// the next session after its session is lost (and gone within a session
// timeout of its process's death); a DynamicSequential one as an ephemeral
// sequential node named <id><sequence>, as Curator names it; a Static or
// Permanent one as a persistent node, which outlives the process. Names, Instances and Instance read the registry
// (Instances in one multi-read). A ServiceCache keeps a service's
// instances in memory through recipes/cache, each decoded once when its
// node changes; a Provider picks one from it with Curator's strategies
// (round robin, random, sticky) and skips one reported failing (its down
// instance policy), without a request.
//
// # The format
//
// An instance is one JSON object, as Jackson writes Curator's
// ServiceInstance (compact, UTF-8, only '"', '\' and control characters
// escaped):
//
//	{"name":"orders","id":"6f1c…","address":"10.0.0.7","port":8080,"sslPort":null,
//	 "payload":{"@class":"org.example.InstanceDetails","description":"orders API"},
//	 "registrationTimeUTC":1732600000123,"serviceType":"DYNAMIC",
//	 "uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false}]},
//	 "enabled":true}
//
// Every field is always written, in that order, null where Curator's is
// (address, port, sslPort, payload, uriSpec, serviceType). Curator has two
// modes: its default, "compatible", leaves enabled out (readers from before
// Curator 2.9.1 failed on it), so that everything it writes is read as
// enabled; the other writes it. A Codec is in the compatible mode unless
// WithEnabledField. Both modes read enabled, and a missing one is true.
//
// The payload carries its Java class, as Jackson's @JsonTypeInfo on
// ServiceInstance.getPayload writes it: {"@class":"org.example.P",...} for
// a value written as an object (a Java bean or map), ["java.util.ArrayList",
// [...]] for anything else (a list, a Long, an enum), and no class at all
// for a String, Integer, Double or Boolean, which Jackson reads back from
// the JSON type. WithPayloadClass names the class a Go payload is written
// with; without it, the class is the one Jackson reads the value as
// (java.util.LinkedHashMap for an object), which a Curator reader with an
// Object or Map payload class accepts. Reading accepts all three forms,
// with "@class" anywhere in the object.
//
// # Why Instance is generic
//
// Instance[T] holds its payload as T, decoded and encoded by
// encoding/json, because Curator's own is typed (ServiceInstance<T> with a
// payload class) and a Go user wants a struct, not bytes to decode at
// every use. Instance[json.RawMessage] gives the payload's JSON as it was
// (inside any type wrapper) and Instance[any] a generic value, so nothing
// is lost by the type parameter.
//
// # Guarantees
//
//   - An Instance made in Go is written byte for byte as Curator 5.x writes
//     the same instance with Jackson's defaults, for payloads whose
//     encoding/json output is Jackson's (strings, integers, bools, objects
//     whose fields are in the Java class's order); testdata holds the
//     goldens.
//   - Whatever Marshal writes, Curator's JsonInstanceSerializer reads, with
//     the payload as an instance of its class (tested against Jackson with
//     a Java peer mirroring Curator's ServiceInstance).
//   - A Java registry on the same server, kept as curator-x-discovery keeps
//     it (ZooKeeper's own client, Jackson, the same paths, ephemeral
//     instances under container parents), reads what a Discovery
//     registers, and a Discovery and its ServiceCache read what it
//     registers, until its session ends (tested with a Java peer).
//   - A document read and written again, changed or not, keeps the fields
//     Curator does not know (after the known ones, in their order), the
//     payload's Java class, a null or empty value where Go's zero would be
//     written otherwise, and the payload's bytes while the payload still
//     encodes as it was read, so also the fields of it that T lacks. A
//     document Curator wrote comes back byte for byte.
//   - Unmarshal refuses, as ErrMalformedInstance, what is not an instance,
//     without panicking; Marshal refuses, as ErrInvalidArgument, a port
//     that Java's Integer cannot hold.
//
// Not guaranteed: byte equality for a payload whose encoding/json output
// differs from Jackson's (a Go map's keys come sorted, a float as Go
// writes it); Jackson's coercions (a port as a string, an enum by number,
// a case-insensitive field name) are refused rather than followed; fields
// Curator does not know inside uriSpec or its parts are dropped, as
// Curator drops them; and a changed payload is written from T, without
// the fields of the read payload that T lacks.
//
// # Uri specs
//
// ParseURISpec reads Curator's uri spec syntax ("{scheme}://{address}:{port}",
// with {[} and {]} for literal braces), and Build and Instance.BuildURI fill
// it in as Curator's UriSpec.build does.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package discovery
