package leases

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// ReleaseAll releases every lease given (nil entries are skipped), as
// Release does each. Leases of one client and session (not TTL leases) are deleted in one
// transaction (one request), falling back to one delete each if that
// fails. The error joins the errors of the leases that had one.
func ReleaseAll(ctx context.Context, ls ...*Lease) error {
	var errs []error
	batch := make([]*Lease, 0, len(ls))
	for _, l := range ls {
		if l == nil {
			continue
		}
		if l.ttl != nil {
			if err := l.releaseTTL(ctx); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		prior, first := l.watch.Finish(errReleased)
		switch {
		case !first:
		case prior != nil:
			errs = append(errs, fmt.Errorf("leases: release %s: %w", l.node.Path, prior))
		default:
			batch = append(batch, l)
		}
	}
	if len(batch) > 1 && oneSession(batch) && deleteTogether(ctx, batch) == nil {
		return errors.Join(errs...)
	}
	for _, l := range batch {
		if err := l.delete(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// oneSession reports whether the leases share a client and a session.
func oneSession(ls []*Lease) bool {
	for _, l := range ls[1:] {
		if l.client != ls[0].client || l.node.Session != ls[0].node.Session {
			return false
		}
	}
	return true
}

// deleteTogether deletes the lease nodes in one transaction, which fails as
// a whole if any node is gone already.
func deleteTogether(ctx context.Context, ls []*Lease) error {
	ctx, cancel := recipe.FinishContext(ctx)
	defer cancel()
	ops := make([]framework.Op, len(ls))
	for i, l := range ls {
		ops[i] = framework.DeleteOp(l.node.Path, -1)
	}
	_, err := ls[0].client.Multi(framework.BindSession(ctx, ls[0].node.Session), ops...)
	return err
}
