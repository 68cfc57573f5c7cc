// Package lease keeps the client's session leases: for each session, the
// instant before which the server cannot have expired it, moved on by the
// replies the wire package sees and read by the client's Session. It also
// holds the client's clock, monotonic, on which every lease is counted.
//
// It imports nothing of the framework: the Session hears of its lease's
// moves through a Watcher.
package lease
