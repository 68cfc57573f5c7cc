package main

import (
	"context"

	"zkbench/gokit"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// rwLocker adapts the read or the write lock of a ReadWriteLock; one per
// benchmark client, so the calling goroutine is always the owner.
type rwLocker struct {
	l    *rwlock.Lock
	hold *rwlock.Hold
}

func (l *rwLocker) Acquire() error {
	h, err := l.l.Acquire(context.Background())
	l.hold = h
	return err
}

func (l *rwLocker) Release() error { return l.hold.Release(context.Background()) }

func newRWLock(c *framework.Client, path string) (read, write gokit.Locker) {
	rw, err := rwlock.New(c, path)
	if err != nil {
		panic(err)
	}
	return &rwLocker{l: rw.ReadLock()}, &rwLocker{l: rw.WriteLock()}
}
