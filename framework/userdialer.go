package framework

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// userDialer returns the dialer a caller's go-zookeeper options set
// (zk.WithDialer in WithZKOptions), or nil. The client wraps it, as it
// wraps its default dial, instead of letting it replace the wrapper:
// without the wrapper the client has no lease, no carrier and no watch.
// go-zookeeper keeps the dialer in an unexported field and offers no way
// to read it, so the options are applied to a scratch connection (they
// only set fields) and the field is read by reflection. A go-zookeeper
// whose connection lacks the field (none from v1.0.0 to v1.0.4 does)
// fails New rather than lose the wrapper silently.
func userDialer(opts []func(*zk.Conn)) (wire.DialFunc, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	var scratch zk.Conn
	for _, o := range opts {
		o(&scratch)
	}
	f := reflect.ValueOf(&scratch).Elem().FieldByName("dialer")
	if !f.IsValid() || f.Type() != reflect.TypeFor[zk.Dialer]() {
		return nil, fmt.Errorf("%w: this go-zookeeper keeps its dialer where the client cannot find it: "+
			"the client cannot wrap a dialer of WithZKOptions", ErrInvalidOption)
	}
	d := *(*zk.Dialer)(unsafe.Pointer(f.UnsafeAddr()))
	if d == nil {
		return nil, nil
	}
	return d, nil
}
