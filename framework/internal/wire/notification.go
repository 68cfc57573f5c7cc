package wire

import "github.com/go-zookeeper/zk"

// ParseNotification reads a notification's body: ZooKeeper's WatcherEvent
// (type, state, path).
func ParseNotification(body []byte) (zk.Event, error) {
	r := JuteReader{B: body}
	ev := zk.Event{Type: zk.EventType(r.Int32()), State: zk.State(r.Int32()), Path: r.Str()}
	return ev, r.Err
}
