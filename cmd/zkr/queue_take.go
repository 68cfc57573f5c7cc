package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// take takes one node of the queue and prints its items, waiting at most
// timeout (negative: no bound) for one to come.
func (f *queueFlags) take(ctx context.Context, e *env, client *framework.Client, what string, q *openQueue, timeout time.Duration) error {
	p := &itemPrinter{e: e, path: q.path, json: f.json}
	if q.simple != nil {
		return f.takeSimple(ctx, what, q.simple, p, timeout)
	}
	var cn *queue.Consumer[[]byte]
	cn, err := q.newConsumer(func(fctx context.Context, item []byte) error {
		if f.lockPath != "" && fctx.Err() != nil && p.printed() == 0 {
			// Stopping, or the item's lock went with the session, before
			// anything was printed: the item stays in the queue untouched.
			return fctx.Err()
		}
		_ = cn.Close(fctx) // one node: the consumer stops after it
		return p.print(item)
	})
	if err != nil {
		return err
	}
	wctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	if err := cn.Start(wctx); err != nil && wctx.Err() == nil {
		return err
	}
	// A consumer that did not start (the connection took the whole
	// --timeout) is done at once.
	select {
	case <-cn.Done():
	case <-wctx.Done():
	}
	// Waits for the item under way: printed, it is deleted (the lock-safe
	// mode's closing transaction), else left in the queue.
	cctx, ccancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer ccancel()
	_ = cn.Close(cctx)
	if n, perr := p.result(); n > 0 || perr != nil {
		return perr
	}
	switch stopped := cn.Err(); {
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() == nil && stopped != nil:
		return fmt.Errorf("%s: %w", what, stopped) // the client was closed
	case !client.State().IsConnected():
		return unreachableErr{fmt.Errorf("%s: --timeout (%v) ran out while the servers could not be reached", what, f.timeout)}
	}
	return fmt.Errorf("%s: %w: no item came within --timeout (%v)", what, errTimedOut, f.timeout)
}

// takeSimple takes the head of a simple queue and prints it.
func (f *queueFlags) takeSimple(ctx context.Context, what string, s *queue.Simple, p *itemPrinter, timeout time.Duration) error {
	var data []byte
	var err error
	if timeout < 0 {
		data, err = s.Take(ctx)
	} else {
		data, err = s.Poll(ctx, timeout)
	}
	switch {
	case errors.Is(err, queue.ErrEmpty):
		return fmt.Errorf("%s: %w: no item came within --timeout (%v)", what, errTimedOut, f.timeout)
	case errors.Is(err, queue.ErrUnreachable):
		return unreachableErr{err}
	case errors.Is(err, queue.ErrOutcomeUnknown):
		return fmt.Errorf("%s: %w (the item it deleted, if it did, is gone)", what, err)
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	}
	return p.print(data)
}

// itemPrinter prints the items taken, one a line, and counts them. The
// consumer calls it on a goroutine of its own.
type itemPrinter struct {
	e    *env
	path string
	json bool

	mu  sync.Mutex // guards the fields below
	n   int        // items printed
	err error      // the first failed print
}

// takenItem is an item as take --json prints it: its bytes as text, or
// in base64 when they are not UTF-8.
type takenItem struct {
	Path       string  `json:"path"`
	Item       *string `json:"item,omitempty"`
	ItemBase64 []byte  `json:"item_base64,omitempty"`
}

// print writes item on a line of its own. A failed write is the
// function's error: a lock-safe consumer gives the item back.
func (p *itemPrinter) print(item []byte) error {
	line := item
	if p.json {
		out := takenItem{Path: p.path}
		if utf8.Valid(item) {
			s := string(item)
			out.Item = &s
		} else {
			out.ItemBase64 = item
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		line = b
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := fmt.Fprintf(p.e.stdout, "%s\n", line); err != nil {
		if p.err == nil {
			p.err = fmt.Errorf("print the item taken: %w", err)
		}
		return err
	}
	p.n++
	return nil
}

// printed returns how many items were printed.
func (p *itemPrinter) printed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// result returns how many items were printed and the first failed print.
func (p *itemPrinter) result() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.err
}
