package zkrecipes_test

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// The rules of CONTRIBUTING.md's vocabulary table that a machine can
// check, over a package's exported API as go/types sees it. Each rule
// reports a drift as "pkg.Name: what is wrong", so that a failure names
// the place to fix and the row of the table it breaks.

// apiPackage is one package under check, typed from its source.
type apiPackage struct {
	pkg  *types.Package
	fset *token.FileSet
}

// apiExemption lets one name off one rule, for the reason the table
// gives; an exemption that lets nothing off is itself a drift, so the
// list cannot outlive what it excuses.
type apiExemption struct {
	name, rule, why string
}

// apiExemptions are the table's stated exceptions.
var apiExemptions = []apiExemption{
	{"leader.Leadership", "hold-release", "a term is given back by Latch.Resign or by the selector's function returning, not by the holder's Release"},
	{"discovery.WithLogger", "logger", "the registry logs nothing of its own: its registrations and caches log as recipes/node and recipes/cache"},
}

// apiPending are the drifts that issue 41 found and that are not fixed
// yet: the API test tolerates these and no other, and fails once one is
// fixed until it is taken off, so the list only shrinks.
var apiPending = []string{}

// checkAPI returns the drifts of pkg from the table's rules, and the
// exemptions used.
func checkAPI(p apiPackage) (drifts []string, used map[string]bool) {
	c := &apiChecker{p: p, used: map[string]bool{}}
	scope := p.pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			c.checkType(obj)
		case *types.Func:
			c.checkFunc(obj)
		}
	}
	c.checkOptionTypes()
	c.checkLogger()
	sort.Strings(c.drifts)
	return c.drifts, c.used
}

type apiChecker struct {
	p      apiPackage
	drifts []string
	used   map[string]bool
}

func (c *apiChecker) driftf(name, format string, args ...any) {
	c.drifts = append(c.drifts, c.p.pkg.Name()+"."+name+": "+fmt.Sprintf(format, args...))
}

// exempt tells whether name is let off rule, and notes the use.
func (c *apiChecker) exempt(name, rule string) bool {
	full := c.p.pkg.Name() + "." + name
	for _, e := range apiExemptions {
		if e.name == full && e.rule == rule {
			c.used[full+" "+rule] = true
			return true
		}
	}
	return false
}

// methods returns the exported methods of *T (which include T's), by
// name.
func methods(tn *types.TypeName) map[string]*types.Func {
	out := map[string]*types.Func{}
	ms := types.NewMethodSet(types.NewPointer(tn.Type()))
	for i := range ms.Len() {
		if f, ok := ms.At(i).Obj().(*types.Func); ok && f.Exported() {
			out[f.Name()] = f
		}
	}
	return out
}

// sigString is a signature without its receiver and parameter names, with
// types named by package name: "func(context.Context) error".
func sigString(f *types.Func) string {
	sig := f.Type().(*types.Signature)
	return "func" + strings.TrimPrefix(types.TypeString(types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic()), qualifier), "func")
}

func unnamed(t *types.Tuple) *types.Tuple {
	vs := make([]*types.Var, t.Len())
	for i := range t.Len() {
		vs[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
	}
	return types.NewTuple(vs...)
}

func qualifier(p *types.Package) string { return p.Name() }

// The lifecycle ("Running in the background"): one Start, one Close, one
// Done, one Err, in one shape.
const (
	sigStart = "func(context.Context) error"
	sigClose = "func(context.Context) error"
	sigDone  = "func() <-chan struct{}"
	sigErr   = "func() error"
)

// endNames are the ways of ending a recipe that the table does not have:
// a recipe ends with Close(ctx), a hold with Release(ctx).
var endNames = []string{"Stop", "Shutdown", "Unregister", "Cancel"}

// holdForbidden are the names the table keeps off holds.
var holdForbidden = []string{"Name", "Path", "Return", "Unlock", "Close"}

func (c *apiChecker) checkType(tn *types.TypeName) {
	if _, ok := tn.Type().Underlying().(*types.Interface); ok {
		c.checkListenerType(tn)
		return
	}
	if tn.Name() == "Listener" {
		c.checkListenerType(tn)
	}
	name := tn.Name()
	c.checkEventFields(tn)
	ms := methods(tn)
	for mname, m := range ms {
		c.checkCtxFirst(name+"."+mname, m)
		c.checkOptionParam(name+"."+mname, m)
		if slices.Contains(endNames, mname) {
			c.driftf(name+"."+mname, "a recipe ends with Close(ctx), a hold with Release(ctx): no %s", mname)
		}
	}
	if m := ms["AddListener"]; m != nil {
		c.checkAddListener(name, m)
	}
	if m := ms["Participants"]; m != nil {
		c.checkParticipants(name, m)
	}
	if name == "Participant" {
		c.checkParticipant(tn)
	}
	for mname, m := range ms {
		c.checkToldOfChanges(name+"."+mname, m)
		if strings.HasPrefix(mname, "Await") {
			c.checkAwait(name+"."+mname, m)
		}
	}
	if m := ms["Close"]; m != nil && sigString(m) != sigClose {
		c.driftf(name+".Close", "is %s, want %s", sigString(m), sigClose)
	}
	_, hold := ms["Lost"]
	switch {
	case hold:
		c.checkHold(name, ms)
	case background(ms) != "":
		c.checkLifecycle(name, ms)
	}
}

// background returns the method by which a type shows that it runs in
// the background (Start, Done, Run, or an Await...), or "".
func background(ms map[string]*types.Func) string {
	for _, n := range []string{"Start", "Done", "Run"} {
		if ms[n] != nil {
			return n
		}
	}
	for n := range ms {
		if strings.HasPrefix(n, "Await") {
			return n
		}
	}
	return ""
}

// checkLifecycle: a type with Start, Done, Run or an Await... (and no
// Lost: not a hold) runs in the background, and has all four of the
// lifecycle's methods.
func (c *apiChecker) checkLifecycle(name string, ms map[string]*types.Func) {
	for _, want := range []struct{ m, sig string }{
		{"Start", sigStart}, {"Close", sigClose}, {"Done", sigDone}, {"Err", sigErr},
	} {
		m := ms[want.m]
		switch {
		case m == nil && want.m == "Start":
			// Started by what made it (a discovery registration); the rest
			// of the lifecycle stands.
		case m == nil:
			c.driftf(name, "runs in the background (it has %s) but has no %s %s", background(ms), want.m, want.sig)
		case want.m == "Close":
			// Its shape is every Close's (checkType).
		case sigString(m) != want.sig:
			c.driftf(name+"."+want.m, "is %s, want %s", sigString(m), want.sig)
		}
	}
}

// checkHold: a type with Lost is a hold, lease or term, and has the
// table's hold vocabulary (one node or several).
func (c *apiChecker) checkHold(name string, ms map[string]*types.Func) {
	many := ms["Nodes"] != nil
	want := []struct{ m, sig string }{
		{"Lost", sigDone}, {"Err", sigErr},
		{"Node", "func() string"},
		{"FencingToken", "func(context.Context) (int64, error)"},
		{"Guard", "func() framework.Op"},
		{"Release", "func(context.Context) error"},
	}
	if many {
		want[2] = struct{ m, sig string }{"Nodes", "func() []string"}
		want[3] = struct{ m, sig string }{"FencingTokens", "func(context.Context) ([]int64, error)"}
		want[4] = struct{ m, sig string }{"Guards", "func() []framework.Op"}
	}
	for _, w := range want {
		m := ms[w.m]
		switch {
		case m == nil && w.m == "Release" && c.exempt(name, "hold-release"):
		case m == nil:
			c.driftf(name, "is a hold (it has Lost) but has no %s %s", w.m, w.sig)
		case sigString(m) != w.sig:
			c.driftf(name+"."+w.m, "is %s, want %s", sigString(m), w.sig)
		}
	}
	for _, f := range holdForbidden {
		if ms[f] != nil {
			c.driftf(name+"."+f, "a hold has no %s (the table's hold vocabulary)", f)
		}
	}
}

// checkToldOfChanges: a method that hands out a channel of values (not a
// signal of struct{}, as Done, Lost and Cached's) is Watch(ctx)
// (<-chan T, error), the table's one way to be told of changes.
func (c *apiChecker) checkToldOfChanges(name string, m *types.Func) {
	sig := m.Type().(*types.Signature)
	values := false
	for i := range sig.Results().Len() {
		if ch, ok := sig.Results().At(i).Type().Underlying().(*types.Chan); ok {
			if st, ok := ch.Elem().Underlying().(*types.Struct); !ok || st.NumFields() > 0 {
				values = true
			}
		}
	}
	if !values {
		return
	}
	ok := strings.HasSuffix(name, ".Watch") && sig.Params().Len() == 1 && sig.Results().Len() == 2 &&
		types.TypeString(sig.Params().At(0).Type(), qualifier) == "context.Context" &&
		types.TypeString(sig.Results().At(1).Type(), qualifier) == "error"
	if ch, isChan := sig.Results().At(0).Type().(*types.Chan); !isChan || ch.Dir() != types.RecvOnly {
		ok = false
	}
	if !ok {
		c.driftf(name, "is %s: told of changes by Watch(ctx) (<-chan T, error)", sigString(m))
	}
}

// checkAddListener: AddListener(func(E)) (remove func()), the function
// given plainly or as the package's Listener type.
func (c *apiChecker) checkAddListener(name string, m *types.Func) {
	sig := m.Type().(*types.Signature)
	ok := sig.Params().Len() == 1 && sig.Results().Len() == 1 && !sig.Variadic() &&
		isEventFunc(sig.Params().At(0).Type()) &&
		types.TypeString(sig.Results().At(0).Type(), qualifier) == "func()"
	if !ok {
		c.driftf(name+".AddListener", "is %s, want func(func(E)) func(): one function of one event, and the remove", sigString(m))
	}
}

// isEventFunc tells whether t is a function of one value with no result.
func isEventFunc(t types.Type) bool {
	sig, ok := t.Underlying().(*types.Signature)
	return ok && sig.Params().Len() == 1 && sig.Results().Len() == 0 && !sig.Variadic()
}

// checkListenerType: a package's Listener is a function of one event,
// never an interface of callbacks.
func (c *apiChecker) checkListenerType(tn *types.TypeName) {
	if strings.HasSuffix(tn.Name(), "Listener") && !isEventFunc(tn.Type()) {
		c.driftf(tn.Name(), "a listener is a function of one event, not %s", types.TypeString(tn.Type().Underlying(), qualifier))
	}
}

// checkCtxFirst: ctx first on every call that may wait.
func (c *apiChecker) checkCtxFirst(name string, f *types.Func) {
	params := f.Type().(*types.Signature).Params()
	for i := range params.Len() {
		if types.TypeString(params.At(i).Type(), qualifier) == "context.Context" && i != 0 {
			c.driftf(name, "takes a context.Context as parameter %d: ctx comes first", i+1)
		}
	}
}

func (c *apiChecker) checkFunc(f *types.Func) {
	c.checkCtxFirst(f.Name(), f)
	c.checkOptionParam(f.Name(), f)
	sig := f.Type().(*types.Signature)
	if strings.HasPrefix(f.Name(), "With") && len(f.Name()) > 4 {
		c.checkWith(f, sig)
	}
	if f.Name() == "New" || (strings.HasPrefix(f.Name(), "New") && len(f.Name()) > 3 && f.Name()[3] >= 'A' && f.Name()[3] <= 'Z') {
		c.checkConstructor(f, sig)
	}
}

// checkWith: every With... is a functional option of the package's option
// type (Option in a recipe).
func (c *apiChecker) checkWith(f *types.Func, sig *types.Signature) {
	if sig.Results().Len() != 1 {
		c.driftf(f.Name(), "is %s: a With... returns one option", sigString(f))
		return
	}
	named, ok := sig.Results().At(0).Type().(*types.Named)
	switch {
	case !ok || named.Obj().Pkg() != c.p.pkg || !strings.HasSuffix(named.Obj().Name(), "Option"):
		c.driftf(f.Name(), "returns %s: a With... returns the package's option",
			types.TypeString(sig.Results().At(0).Type(), qualifier))
	case named.Obj().Name() != "Option":
		c.driftf(f.Name(), "returns %s: a recipe's options are of one type, Option", types.TypeString(named, qualifier))
	}
}

// checkConstructor: a recipe's New and NewX take the client and the path
// first and return (*T, error), T the package's.
func (c *apiChecker) checkConstructor(f *types.Func, sig *types.Signature) {
	params, res := sig.Params(), sig.Results()
	if params.Len() == 0 || types.TypeString(params.At(0).Type(), qualifier) != "*framework.Client" {
		return // not a recipe's constructor: a value's (lockdriver.NewNearest)
	}
	ok := params.Len() >= 2 && types.TypeString(params.At(1).Type(), qualifier) == "string" &&
		res.Len() == 2 && types.TypeString(res.At(1).Type(), qualifier) == "error"
	if ok {
		ptr, isPtr := res.At(0).Type().(*types.Pointer)
		ok = isPtr && isOwn(types.Unalias(ptr.Elem()), c.p.pkg)
	}
	if !ok {
		c.driftf(f.Name(), "is %s: a constructor is New(client, path, ...) (*T, error)", sigString(f))
	}
}

// isOwn tells whether t is a named type of pkg.
func isOwn(t types.Type, pkg *types.Package) bool {
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() == pkg
}

// checkOptionParam: a recipe's call that takes options takes ...Option.
func (c *apiChecker) checkOptionParam(name string, f *types.Func) {
	sig := f.Type().(*types.Signature)
	if !sig.Variadic() {
		return
	}
	last := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
	named, ok := last.(*types.Named)
	if ok && strings.HasSuffix(named.Obj().Name(), "Option") && (named.Obj().Pkg() != c.p.pkg || named.Obj().Name() != "Option") {
		c.driftf(name, "takes ...%s: a recipe's call takes its options as ...Option", types.TypeString(last, qualifier))
	}
}

// checkParticipants: the participants listing is Participants(ctx)
// ([]Participant, error), with the recipe package's own Participant.
func (c *apiChecker) checkParticipants(name string, m *types.Func) {
	sig := m.Type().(*types.Signature)
	ok := sig.Params().Len() == 1 && types.TypeString(sig.Params().At(0).Type(), qualifier) == "context.Context" &&
		sig.Results().Len() == 2 && types.TypeString(sig.Results().At(1).Type(), qualifier) == "error"
	if ok {
		sl, isSlice := sig.Results().At(0).Type().(*types.Slice)
		ok = isSlice && types.TypeString(sl.Elem(), qualifier) == c.p.pkg.Name()+".Participant"
	}
	if !ok {
		c.driftf(name+".Participants", "is %s, want func(context.Context) ([]%s.Participant, error)", sigString(m), c.p.pkg.Name())
	}
}

// checkParticipant: a Participant has at least Node string (the node's
// path) and ID string (its data as text); a recipe adds fields, never
// renames these two. An alias of another recipe's (rwlock's of mutex's)
// is checked there.
func (c *apiChecker) checkParticipant(tn *types.TypeName) {
	if tn.IsAlias() {
		return
	}
	st, ok := tn.Type().Underlying().(*types.Struct)
	fields := map[string]string{}
	for i := 0; ok && i < st.NumFields(); i++ {
		fields[st.Field(i).Name()] = types.TypeString(st.Field(i).Type(), qualifier)
	}
	for _, want := range []string{"Node", "ID"} {
		if fields[want] != "string" {
			c.driftf(tn.Name(), "has no field %s string: a participant names its node's path Node and its data ID", want)
		}
	}
}

// checkAwait: an Await... waits for what a background recipe first
// reaches, on ctx alone, and says by an error when it will not come:
// Await...(ctx) error, or (T, error).
func (c *apiChecker) checkAwait(name string, m *types.Func) {
	sig := m.Type().(*types.Signature)
	res := sig.Results()
	ok := sig.Params().Len() == 1 && types.TypeString(sig.Params().At(0).Type(), qualifier) == "context.Context" &&
		res.Len() >= 1 && res.Len() <= 2 && types.TypeString(res.At(res.Len()-1).Type(), qualifier) == "error"
	if !ok {
		c.driftf(name, "is %s, want func(context.Context) error or (T, error)", sigString(m))
	}
}

// checkLogger: a recipe's package that has options logs through the
// client's logger unless WithLogger gives it its own (the table's
// Logging row); WithLogger's shape is the same in every recipe
// (checkWithAcross).
func (c *apiChecker) checkLogger() {
	scope := c.p.pkg.Scope()
	if _, ok := scope.Lookup("Option").(*types.TypeName); !ok {
		return
	}
	if _, ok := scope.Lookup("WithLogger").(*types.Func); !ok && !c.exempt("WithLogger", "logger") {
		c.driftf("Option", "the package has options but no WithLogger(*slog.Logger)")
	}
}

// checkOptionTypes: a recipe's package has one option type, Option.
func (c *apiChecker) checkOptionTypes() {
	scope := c.p.pkg.Scope()
	for _, name := range scope.Names() {
		obj, ok := scope.Lookup(name).(*types.TypeName)
		if ok && obj.Exported() && strings.HasSuffix(name, "Option") && name != "Option" {
			c.driftf(name, "a recipe's package has one option type, Option")
		}
	}
}

// checkEventFields: an event names the path of its node Path, as
// cache.Event does (Node() is a hold's, not an event's).
func (c *apiChecker) checkEventFields(tn *types.TypeName) {
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok || !strings.HasSuffix(tn.Name(), "Event") {
		return
	}
	for i := range st.NumFields() {
		if f := st.Field(i); f.Exported() && f.Name() == "Node" {
			c.driftf(tn.Name()+".Node", "an event's path is its field Path")
		}
	}
}

// checkWithAcross: an option of one name has one signature in every
// recipe (WithLogger(*slog.Logger) everywhere), so that a user who has
// learned it in one recipe guesses it right in the next.
func checkWithAcross(pkgs []*types.Package) []string {
	type seen struct{ pkg, sig string }
	first := map[string]seen{}
	var drifts []string
	for _, pkg := range pkgs {
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			f, ok := scope.Lookup(name).(*types.Func)
			if !ok || !f.Exported() || !strings.HasPrefix(name, "With") {
				continue
			}
			sig := f.Type().(*types.Signature)
			// The parameters only: the result is each package's Option.
			params := types.TypeString(unnamed(sig.Params()), qualifier)
			if s, ok := first[name]; !ok {
				first[name] = seen{pkg.Name(), params}
			} else if s.sig != params {
				drifts = append(drifts, fmt.Sprintf("%s.%s: takes %s where %s.%s takes %s", pkg.Name(), name, params, s.pkg, name, s.sig))
			}
		}
	}
	sort.Strings(drifts)
	return drifts
}
