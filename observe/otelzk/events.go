package otelzk

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// OnRequest records the try's duration by operation and error type.
func (o *Observer) OnRequest(ev framework.RequestEvent) {
	attrs := []attribute.KeyValue{OperationKey.String(ev.Op)}
	if ev.Err != nil {
		attrs = append(attrs, ErrorTypeKey.String(errorType(ev.Err)))
	}
	o.requests.Record(context.Background(), ev.Duration.Seconds(), metric.WithAttributes(attrs...))
}

// OnRetry counts the retry by operation.
func (o *Observer) OnRetry(ev framework.RetryEvent) {
	o.retries.Add(context.Background(), 1, metric.WithAttributes(OperationKey.String(ev.Op)))
}

// OnAcquire counts the acquires under way, records the wait, and makes
// the acquire's span once it ends, from its start.
func (o *Observer) OnAcquire(ev framework.AcquireEvent) {
	ctx := ev.Context
	if ctx == nil {
		ctx = context.Background()
	}
	recipe := o.recipeAttrs(ev.Recipe, ev.Path)
	if ev.Phase == framework.AcquireStarted {
		o.waits.Add(ctx, 1, metric.WithAttributes(recipe...))
		return
	}
	o.waits.Add(ctx, -1, metric.WithAttributes(recipe...))
	outcome := acquireOutcome(ev.Err)
	o.wait.Record(ctx, ev.Wait.Seconds(), metric.WithAttributes(append(recipe, OutcomeKey.String(outcome))...))
	_, span := o.tracer.Start(ctx, "zkrecipes.acquire", trace.WithTimestamp(ev.Start),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(RecipeKey.String(ev.Recipe), PathKey.String(ev.Path), OutcomeKey.String(outcome)))
	if outcome == "error" {
		span.SetStatus(codes.Error, ev.Err.Error())
		span.SetAttributes(ErrorTypeKey.String(errorType(ev.Err)))
	}
	span.End(trace.WithTimestamp(ev.Start.Add(ev.Wait)))
}

// OnHoldStart counts the hold as held.
func (o *Observer) OnHoldStart(ev framework.HoldEvent) {
	o.holds.Add(context.Background(), 1, metric.WithAttributes(o.recipeAttrs(ev.Recipe, ev.Path)...))
}

// OnHoldEnd counts the hold as held no more, records its length by cause,
// and counts a loss.
func (o *Observer) OnHoldEnd(ev framework.HoldEvent) {
	recipe := o.recipeAttrs(ev.Recipe, ev.Path)
	o.holds.Add(context.Background(), -1, metric.WithAttributes(recipe...))
	attrs := append(recipe, CauseKey.String(string(ev.Cause)))
	o.hold.Record(context.Background(), ev.Held.Seconds(), metric.WithAttributes(attrs...))
	if ev.Cause.IsLoss() {
		o.losses.Add(context.Background(), 1, metric.WithAttributes(attrs...))
	}
}

// OnTerm counts the terms under way and, at a term's end, records its
// length and makes its span.
func (o *Observer) OnTerm(ev framework.TermEvent) {
	ctx := context.Background()
	var attrs []attribute.KeyValue
	if o.paths {
		attrs = append(attrs, PathKey.String(ev.Path))
	}
	if ev.Phase == framework.TermStarted {
		o.terms.Add(ctx, 1, metric.WithAttributes(attrs...))
		return
	}
	o.terms.Add(ctx, -1, metric.WithAttributes(attrs...))
	cause := CauseKey.String(string(ev.Cause))
	o.term.Record(ctx, ev.Duration.Seconds(), metric.WithAttributes(append(attrs, cause)...))
	end := time.Now()
	_, span := o.tracer.Start(ctx, "zkrecipes.leader.term", trace.WithTimestamp(end.Add(-ev.Duration)),
		trace.WithAttributes(PathKey.String(ev.Path), NodeKey.String(ev.Node), IDKey.String(ev.Participant), cause))
	if ev.Cause.IsLoss() {
		span.SetStatus(codes.Error, ev.Err.Error())
	}
	span.End(trace.WithTimestamp(end))
}

// recipeAttrs are the attributes of a lock metric.
func (o *Observer) recipeAttrs(recipe, path string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 1, 4)
	attrs[0] = RecipeKey.String(recipe)
	if o.paths {
		attrs = append(attrs, PathKey.String(path))
	}
	return attrs
}

// acquireOutcome names how an acquire ended.
func acquireOutcome(err error) string {
	switch {
	case err == nil:
		return "granted"
	case errors.Is(err, zkrecipes.ErrNotAcquired):
		return "not_acquired"
	}
	return "error"
}

// errorType names an error in few words, for the error.type attribute.
func errorType(err error) string {
	for _, e := range []struct {
		err  error
		name string
	}{
		{zk.ErrNoNode, "no_node"},
		{zk.ErrNodeExists, "node_exists"},
		{zk.ErrBadVersion, "bad_version"},
		{zk.ErrNotEmpty, "not_empty"},
		{zk.ErrNoAuth, "no_auth"},
		{zk.ErrConnectionClosed, "connection_closed"},
		{zk.ErrSessionExpired, "session_expired"},
		{zk.ErrSessionMoved, "session_moved"},
		{framework.ErrNotConnected, "not_connected"},
		{framework.ErrSessionChanged, "session_changed"},
		{framework.ErrOutcomeUnknown, "outcome_unknown"},
		{zkrecipes.ErrLost, "lost"},
		{zkrecipes.ErrUnreachable, "unreachable"},
		{context.DeadlineExceeded, "timeout"},
		{context.Canceled, "canceled"},
	} {
		if errors.Is(err, e.err) {
			return e.name
		}
	}
	return "other"
}
