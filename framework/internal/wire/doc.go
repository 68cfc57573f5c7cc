// Package wire is the client's side of ZooKeeper's protocol under
// go-zookeeper: the bytes on each server connection and what they prove.
//
// It wraps every connection go-zookeeper dials (see WrappingDialer): it
// follows the packets the server sends (the frame
// scanner), bounds the wait for a connect response (HandshakeBound),
// advances the session lease from the replies (AckTracker), tells a caller
// when a create is written (WriteTap), refuses a write bound to another
// session (BoundWrites), and carries the requests go-zookeeper cannot send
// (Carrier: addWatch, removeWatches, multiRead, setWatches2, reads with a
// watch of the client's own), learning once what each server implements
// (ServerCaps). The jute codec (JuteWriter, JuteReader) encodes and
// decodes their records.
//
// It knows nothing of the client above it: what a connection must tell
// the client (each connect response, each notification, each reply's zxid)
// goes through the functions of Hooks. The framework and its watches
// package import it; it imports only the lease package below it.
package wire
