package framework

import "github.com/go-zookeeper/zk"

// ACLProvider gives the ACL of a node the client creates. The path it gets
// includes the namespace, as Curator's does.
type ACLProvider interface {
	ACL(path string) []zk.ACL
}

// ACLFunc adapts a function to ACLProvider.
type ACLFunc func(path string) []zk.ACL

// ACL calls f.
func (f ACLFunc) ACL(path string) []zk.ACL { return f(path) }

// OpenACL gives every node zk.WorldACL(zk.PermAll): anyone may do anything.
func OpenACL() ACLProvider {
	acl := zk.WorldACL(zk.PermAll)
	return ACLFunc(func(string) []zk.ACL { return acl })
}

// CreatorACL gives every node all permissions for the authenticated
// identities of the creating session only (the "auth" scheme), and none for
// anyone else. The client must be given credentials with WithAuth.
func CreatorACL() ACLProvider {
	acl := zk.AuthACL(zk.PermAll)
	return ACLFunc(func(string) []zk.ACL { return acl })
}

// FixedACL gives every node the same ACL.
func FixedACL(acl []zk.ACL) ACLProvider {
	return ACLFunc(func(string) []zk.ACL { return acl })
}
