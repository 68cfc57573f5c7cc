package zktesting_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A server with a TLS port that asks for client certificates, and a
// client of framework.WithTLS whose certificate's subject is its identity
// in an ACL: only that certificate reads and writes the node.
func ExampleWithTLS() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := zktesting.Start(ctx, zktesting.WithTLS())
	if err != nil {
		fmt.Println("no ZooKeeper installed:", err)
		return
	}
	defer server.Close()

	client, err := framework.Connect(ctx, []string{server.TLSAddr()},
		framework.WithTLS(server.TLS().ClientConfig("billing")))
	if err != nil {
		fmt.Println(err) // errors.Is(err, framework.ErrTLSHandshake): a certificate refused
		return
	}
	defer client.Close()
	onlyBilling := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: zktesting.X509Identity("billing")}}
	if _, err := client.Create(ctx, "/billing", []byte("ok"), framework.Persistent, framework.WithACL(onlyBilling)); err != nil {
		fmt.Println(err)
		return
	}
	data, _, err := client.Get(ctx, "/billing")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	// Output: ok
}
