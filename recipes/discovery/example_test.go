package discovery_test

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// Details is a service's payload, the Go side of a Java bean
// com.example.Details registered with Curator.
type Details struct {
	Description string `json:"description"`
}

// Read an instance a Curator process registered, take it out of service
// (the enabled field, in the mode that writes it), and write it back with
// whatever Curator wrote that Go has no field for; then register a new one
// as Curator would.
func Example() {
	codec, err := discovery.NewCodec[Details](
		discovery.WithPayloadClass("com.example.Details"), discovery.WithEnabledField())
	if err != nil {
		fmt.Println(err)
		return
	}
	fromCurator := []byte(`{"name":"orders","id":"a1","address":"10.0.0.7","port":8080,"sslPort":null,` +
		`"payload":{"@class":"com.example.Details","description":"orders API","owner":"team-a"},` +
		`"registrationTimeUTC":1732600000123,"serviceType":"DYNAMIC",` +
		`"uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},` +
		`{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true}]},` +
		`"enabled":true,"zone":"eu-1"}`)
	inst, err := codec.Unmarshal(fromCurator)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(inst.Name, inst.Payload.Description, inst.PayloadClass(), inst.BuildURI(nil))

	inst.Disabled = true
	data, err := codec.Marshal(inst)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))

	port := 9090
	spec, err := discovery.ParseURISpec("{scheme}://{address}:{port}/v{version}")
	if err != nil {
		fmt.Println(err)
		return
	}
	fresh := &discovery.Instance[Details]{
		Name: "orders", ID: "b2", Address: "10.0.0.8", Port: &port,
		Payload:             Details{Description: "orders API, canary"},
		RegistrationTimeUTC: 1732600000456, URISpec: spec,
	}
	data, err = codec.Marshal(fresh)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	fmt.Println(fresh.BuildURI(map[string]any{"version": 2}))
	// Output:
	// orders orders API com.example.Details http://10.0.0.7:8080
	// {"name":"orders","id":"a1","address":"10.0.0.7","port":8080,"sslPort":null,"payload":{"@class":"com.example.Details","description":"orders API","owner":"team-a"},"registrationTimeUTC":1732600000123,"serviceType":"DYNAMIC","uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true}]},"enabled":false,"zone":"eu-1"}
	// {"name":"orders","id":"b2","address":"10.0.0.8","port":9090,"sslPort":null,"payload":{"@class":"com.example.Details","description":"orders API, canary"},"registrationTimeUTC":1732600000456,"serviceType":"DYNAMIC","uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true},{"value":"/v","variable":false},{"value":"version","variable":true}]},"enabled":true}
	// http://10.0.0.8:9090/v2
}
