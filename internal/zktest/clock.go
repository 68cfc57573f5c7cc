package zktest

import "golang.org/x/sys/unix"

// Monotonic reads CLOCK_MONOTONIC in nanoseconds: the clock that the
// Curator peer's System.nanoTime reads on Linux with OpenJDK, so that an
// instant the peer stamps and one a Go test stamps can be compared.
// time.Now's monotonic reading cannot serve: the runtime subtracts an
// arbitrary base from it.
func Monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("zktest: clock_gettime(CLOCK_MONOTONIC): " + err.Error()) // Linux always has it
	}
	return ts.Nano()
}
