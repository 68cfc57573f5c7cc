package framework_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Authenticate by SASL DIGEST-MD5, as Kafka's ZooKeeper setups without
// Kerberos do, and keep a node for the SASL user alone. The server here
// is one of the example's own that knows bob.
func ExampleWithSASL() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := zktesting.Start(ctx, zktesting.WithSASLUsers(map[string]string{"bob": "bobsecret"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer server.Close()

	_, err = framework.Connect(ctx, []string{server.Addr()}, framework.WithSASL("bob", "guess"))
	fmt.Println("wrong password refused:", errors.Is(err, framework.ErrAuthFailed))

	bob, err := framework.Connect(ctx, []string{server.Addr()}, framework.WithSASL("bob", "bobsecret"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bob.Close()
	_, err = bob.Create(ctx, "/bobs", []byte("only bob"), framework.Persistent,
		framework.WithACL([]zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _, err := bob.Get(ctx, "/bobs")
	fmt.Println(string(data), err)

	anyone, err := framework.Connect(ctx, []string{server.Addr()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer anyone.Close()
	_, _, err = anyone.Get(ctx, "/bobs")
	fmt.Println("anyone else kept out:", errors.Is(err, zk.ErrNoAuth))
	// Output:
	// wrong password refused: true
	// only bob <nil>
	// anyone else kept out: true
}
