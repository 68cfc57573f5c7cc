package main

import (
	"context"
	"errors"

	"zkbench/gokit"

	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// LeaderLatch returns a new latch of the session, for one term.
func (s session) LeaderLatch(path, id string) gokit.LeaderLatch {
	l, err := leader.NewLatch(s.c, path, leader.WithID(id))
	if err != nil {
		panic(err)
	}
	return latch{l}
}

type latch struct{ l *leader.Latch }

func (x latch) Start() error { return x.l.Start(context.Background()) }

func (x latch) Await() error {
	_, err := x.l.Await(context.Background())
	return err
}

func (x latch) Close() error { return x.l.Close(context.Background()) }

// LeaderSelector returns a new selector of the session, for one term.
func (s session) LeaderSelector(path, id string) gokit.LeaderSelector {
	x := selector{lead: new(func())}
	sel, err := leader.NewSelector(s.c, path, func(context.Context) error {
		(*x.lead)()
		return nil
	}, leader.WithID(id))
	if err != nil {
		panic(err)
	}
	x.s = sel
	return x
}

type selector struct {
	s    *leader.Selector
	lead *func() // given to Lead, before the selector runs
}

// Lead runs lead as the selector's function: leadership is given up as
// soon as it returns.
func (x selector) Lead(lead func()) error {
	*x.lead = lead
	err := x.s.Run(context.Background())
	if errors.Is(err, leader.ErrClosed) {
		return nil
	}
	return err
}

func (x selector) Close() error { return x.s.Close(context.Background()) }

// Crash cuts the session's connections for good (see relay).
func (s session) Crash() error {
	if s.relay == nil {
		return errors.New("zkrecipes-bench: the session was not made crashable (ZKR_BENCH_CRASHABLE)")
	}
	return s.relay.crash()
}
