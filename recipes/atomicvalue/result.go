package atomicvalue

import "time"

// Result is what an operation on a value answers, as Curator's
// AtomicValue does. Check Succeeded: an update that did not succeed wrote
// nothing.
type Result[T any] struct {
	// Succeeded tells whether the operation took effect (for Get, always).
	Succeeded bool
	// PreValue is the value the operation last read before its write: 0
	// (nil for Bytes) when the node did not exist.
	PreValue T
	// PostValue is the value written (for Get, the value read); zero
	// unless Succeeded, as in Curator.
	PostValue T
	// Stats counts the tries the operation made.
	Stats Stats
}

// Stats counts the tries of one operation (Curator's AtomicStats).
type Stats struct {
	// OptimisticTries is the number of versioned writes tried without
	// the lock (a read and a write each).
	OptimisticTries int
	// PromotedTries is the number tried while holding the lock (Curator's
	// promotedLockTries); 0 when the update was not promoted.
	PromotedTries int
	// OptimisticTime is the time spent on the optimistic tries.
	OptimisticTime time.Duration
	// PromotedTime is the time spent promoted: waiting for the lock, the
	// tries under it, and its release.
	PromotedTime time.Duration
}

// mapResult converts a result of one value type into another's, with
// convert applied to both values.
func mapResult[T, U any](r Result[T], convert func(T) U) Result[U] {
	return Result[U]{
		Succeeded: r.Succeeded,
		PreValue:  convert(r.PreValue),
		PostValue: convert(r.PostValue),
		Stats:     r.Stats,
	}
}
