package main

import (
	"context"

	"zkbench/gokit"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// semLocker adapts a Semaphore: one lease per benchmark client.
type semLocker struct {
	s     *semaphore.Semaphore
	lease *leases.Lease
}

func (l *semLocker) Acquire() error {
	lease, err := l.s.Acquire(context.Background())
	l.lease = lease
	return err
}

func (l *semLocker) Release() error { return l.lease.Release(context.Background()) }

func newSemaphore(c *framework.Client, path string, maxLeases int) gokit.Locker {
	s, err := semaphore.New(c, path, maxLeases)
	if err != nil {
		panic(err)
	}
	return &semLocker{s: s}
}
