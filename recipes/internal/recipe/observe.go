package recipe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Acquiring is one acquire as the client's observer sees it
// (framework.Observer): StartAcquire reports its start, Done its end. The
// zero Acquiring, which StartAcquire returns for a client without an
// observer, reports nothing and costs nothing.
type Acquiring struct {
	o  framework.Observer
	ev framework.AcquireEvent
}

// StartAcquire reports that an acquire of recipe on path goes to the
// server, if client has an observer.
func StartAcquire(ctx context.Context, client *framework.Client, recipe, path string) Acquiring {
	o := client.Hooks().Observer()
	if o == nil {
		return Acquiring{}
	}
	ev := framework.AcquireEvent{Context: ctx, Recipe: recipe, Path: path, Phase: framework.AcquireStarted, Start: time.Now()}
	o.OnAcquire(ev)
	return Acquiring{o: o, ev: ev}
}

// Done reports the acquire's end: granted if err is nil, else failed. A
// wait that ended while others held what it waited for is reported as
// zkrecipes.ErrNotAcquired, whatever ended it.
func (a *Acquiring) Done(err error) {
	if a.o == nil {
		return
	}
	ev := a.ev
	ev.Wait = time.Since(ev.Start)
	ev.Phase = framework.AcquireGranted
	if err != nil {
		ev.Phase = framework.AcquireFailed
		if errors.Is(err, ErrSeenHeld) && !errors.Is(err, zkrecipes.ErrNotAcquired) {
			err = fmt.Errorf("%w: %w", zkrecipes.ErrNotAcquired, err)
		}
		ev.Err = err
	}
	a.o.OnAcquire(ev)
}

// InterruptionCause is the cause of a hold's end when session s was
// interrupted: its loss, its lease run out, or a suspended connection
// (the words of holdwatch.Interruption).
func InterruptionCause(s *framework.Session) framework.Cause {
	switch {
	case s.IsLost():
		return framework.CauseSessionLost
	case s.LeaseRanOut():
		return framework.CauseLeaseLapsed
	}
	return framework.CauseSuspended
}

// LossCause is the cause of a loss err of a hold of session s: expired
// (a maximum hold time), an interruption of s, or else its node deleted.
func LossCause(err error, s *framework.Session) framework.Cause {
	switch {
	case errors.Is(err, zkrecipes.ErrExpired):
		return framework.CauseExpired
	case s.IsLost(), s.LeaseRanOut(), s.IsInterrupted(framework.StandardErrorPolicy):
		return InterruptionCause(s)
	}
	return framework.CauseDeleted
}
