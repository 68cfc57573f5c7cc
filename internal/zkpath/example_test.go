package zkpath_test

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// A lock contender builds its node name as Curator does, and after the
// create reads the sequence back from the server's answer.
func ExampleProtectedName() {
	id := "53345f98-9423-4e0c-a7b5-9f819e3ec2e1" // normally zkpath.NewProtectionID()
	path := zkpath.Join("/locks/orders", zkpath.ProtectedName(id, zkpath.LockName))
	fmt.Println(path, zkpath.ValidateSequential(path))

	created := path + "0000000042" // as returned by the server
	n := zkpath.ParseNode(zkpath.Base(created), zkpath.LockName)
	fmt.Println(n.ProtectionID == id, n.Sequence, zkpath.Unprotect(n.Raw))
	// Output:
	// /locks/orders/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock- <nil>
	// true 42 lock-0000000042
}

func ExampleSortNodes() {
	children := []string{
		"_c_9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d-lock-0000000003",
		"config",
		"_c_1b4e28ba-2fa1-41d2-883f-0016d3cca427-lock-0000000001",
		"_c_6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b-lock-0000000002",
	}
	zkpath.SortNodes(children, zkpath.LockName)
	for _, c := range children {
		fmt.Println(zkpath.Unprotect(c))
	}
	// Output:
	// lock-0000000001
	// lock-0000000002
	// lock-0000000003
	// config
}
