package barrier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// readyName is the node the member that completes the count creates,
// Curator's: every member waiting to enter watches for it.
const readyName = "ready"

// Double is a double barrier (Curator's DistributedDoubleBarrier): members
// enter together once the given number of them has arrived, and leave
// together once all of them have left. Each Enter makes a new member, so
// goroutines of one process may be members of one Double. It is safe for
// concurrent use.
type Double struct {
	client  *framework.Client
	path    string
	members int
	opts    options
}

// NewDouble returns the double barrier at path for members members (at
// least one). It checks its arguments and does no I/O. As in Curator,
// members is a threshold, not a limit: members that arrive after it was
// reached, while the barrier is open, enter at once.
func NewDouble(client *framework.Client, path string, members int, opts ...Option) (*Double, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	if members < 1 {
		return nil, fmt.Errorf("%w: %d members, want at least 1", ErrInvalidArgument, members)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	return &Double{client: client, path: path, members: members, opts: o}, nil
}

// Path returns the barrier's path, the parent of its members' nodes.
func (d *Double) Path() string { return d.path }

// Enter makes the caller a new member: it creates the member's ephemeral
// node, path/<uuid> as Curator names it, and blocks until the barrier is
// open, which the member that completes the count marks by creating
// path/ready. It returns the member, to Leave when its work is done.
//
// An Enter that fails or whose ctx ends deletes its node, under a context
// of its own; a member arriving at that moment may have counted it. A
// member whose session is lost while it waits fails with ErrLost. A
// session that ends before the member's node is made is no failure: the
// member is made in the next one.
func (d *Double) Enter(ctx context.Context) (*Member, error) {
	for {
		m, err := d.enter(ctx)
		if !errors.Is(err, errSessionEnded) {
			return m, err
		}
	}
}

// errSessionEnded says that the session ended before an Enter made its
// node: it tries again in the next one.
var errSessionEnded = errors.New("session ended before the member's node was made")

func (d *Double) enter(ctx context.Context) (*Member, error) {
	s, err := d.session(ctx)
	if err != nil {
		return nil, d.errorf("enter", err)
	}
	m := &Member{d: d, name: zkpath.NewProtectionID(), session: s}
	m.node = zkpath.Join(d.path, m.name)
	bound := framework.BindSession(ctx, s)
	open, _, ready, err := d.client.ExistsW(bound, d.readyPath())
	if errors.Is(err, framework.ErrSessionChanged) {
		return nil, errSessionEnded
	}
	if err != nil {
		return nil, d.errorf("enter", err)
	}
	if err := m.create(ctx); err != nil {
		return nil, err
	}
	if open {
		return m, nil
	}
	if err := m.awaitOpen(ctx, ready); err != nil {
		m.abandon(ctx)
		return nil, d.errorf("enter", err)
	}
	return m, nil
}

// session returns the client's session, waiting for one if it has none.
func (d *Double) session(ctx context.Context) (*framework.Session, error) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		if s := d.client.Session(); s != nil && !s.IsLost() {
			return s, nil
		}
		if err := d.client.WaitConnected(ctx); err != nil {
			return nil, err
		}
		if s := d.client.Session(); s != nil && !s.IsLost() {
			return s, nil
		}
		// Connected, but the session's change is not recorded yet: wait
		// as the client's retry policy says rather than spin.
		if err := d.client.Hooks().RetryWait(ctx, attempt, start); err != nil {
			return nil, err
		}
	}
}

// members lists the members' node names, in Curator's order (the names
// as strings), ready left out; none if the barrier's node is gone.
func (d *Double) memberNames(ctx context.Context) ([]string, error) {
	names, _, err := d.client.Children(ctx, d.path)
	if recipe.IsNoNode(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == readyName })
	slices.Sort(names)
	return names, nil
}

func (d *Double) readyPath() string { return zkpath.Join(d.path, readyName) }

// errorf wraps err, naming the recipe, the act and the barrier's path.
func (d *Double) errorf(op string, err error) error {
	return fmt.Errorf("barrier: %s %s: %w", op, d.path, err)
}
