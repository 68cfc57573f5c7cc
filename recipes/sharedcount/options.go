package sharedcount

// Option configures a SharedCount.
type Option func(*options) error

type options struct {
	noCreate bool
}

// WithoutCreate makes reads fail with an error wrapping zk.ErrNoNode when
// the node is missing, instead of creating it with the seed: for readers
// that must never write, or lack the permission to. Default: a read creates
// a missing node with the seed, as Curator's SharedCount.start does.
func WithoutCreate() Option {
	return func(o *options) error {
		o.noCreate = true
		return nil
	}
}
