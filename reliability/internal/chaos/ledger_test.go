package chaos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// at returns a time ms milliseconds after a fixed origin.
func at(ms int) time.Time {
	return time.Unix(1_700_000_000, 0).Add(time.Duration(ms) * time.Millisecond)
}

func hold(recipe, holder string, from, to int, exclusive bool, token int64) Hold {
	return Hold{Recipe: recipe, Holder: holder, Exclusive: exclusive, Acquired: at(from), End: at(to), Token: token}
}

func TestLedger_FindsBrokenPromises(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int // of recipe "r"; -1 leaves it unset (1)
		holds []Hold
		want  []string // kinds of the violations, in order
	}{
		{"successive exclusive holds", -1, []Hold{
			hold("r", "a", 0, 10, true, 1), hold("r", "b", 10, 20, true, 2), hold("r", "a", 25, 30, true, 3),
		}, nil},
		{"two exclusive holds overlap", -1, []Hold{
			hold("r", "a", 0, 10, true, 1), hold("r", "b", 5, 20, true, 2),
		}, []string{"overlap"}},
		{"a hold nested in another", -1, []Hold{
			hold("r", "a", 0, 100, true, 1), hold("r", "b", 40, 50, true, 2),
		}, []string{"overlap"}},
		{"the first was signalled lost before the second began", -1, []Hold{
			{Recipe: "r", Holder: "a", Exclusive: true, Acquired: at(0), End: at(8), Lost: true, Token: 1},
			hold("r", "b", 9, 20, true, 2),
		}, nil},
		{"lost on arrival is never in force", -1, []Hold{
			hold("r", "a", 0, 20, true, 5), {Recipe: "r", Holder: "b", Exclusive: true, Acquired: at(5), End: at(5), Lost: true, Token: 3},
		}, nil},
		{"fencing token goes back", -1, []Hold{
			hold("r", "a", 0, 10, true, 7), hold("r", "b", 11, 20, true, 7),
		}, []string{"fencing"}},
		{"a node held again after a blip keeps its token", -1, []Hold{
			{Recipe: "r", Holder: "a", Node: "/n1", Exclusive: true, Acquired: at(0), End: at(10), Lost: true, Token: 7},
			{Recipe: "r", Holder: "a", Node: "/n1", Exclusive: true, Acquired: at(11), End: at(20), Token: 7},
		}, nil},
		{"the same token on another node goes back", -1, []Hold{
			{Recipe: "r", Holder: "a", Node: "/n1", Exclusive: true, Acquired: at(0), End: at(10), Token: 7},
			{Recipe: "r", Holder: "a", Node: "/n2", Exclusive: true, Acquired: at(11), End: at(20), Token: 7},
		}, []string{"fencing"}},
		{"unknown tokens are skipped", -1, []Hold{
			hold("r", "a", 0, 10, true, 7), hold("r", "b", 11, 20, true, 0), hold("r", "c", 21, 30, true, 8),
		}, nil},
		{"leases within the limit", 3, []Hold{
			hold("r", "a", 0, 30, false, 0), hold("r", "b", 5, 30, false, 0), hold("r", "c", 6, 30, false, 0),
			hold("r", "d", 30, 40, false, 0),
		}, nil},
		{"two leases at once within the limit", 3, []Hold{
			hold("r", "a", 0, 30, false, 0), {Recipe: "r", Holder: "b", Acquired: at(5), End: at(30), Leases: 2},
		}, nil},
		{"two leases at once, one too many", 3, []Hold{
			hold("r", "a", 0, 30, false, 0), hold("r", "b", 1, 30, false, 0), {Recipe: "r", Holder: "c", Acquired: at(5), End: at(30), Leases: 2},
		}, []string{"overlap"}},
		{"one lease too many", 3, []Hold{
			hold("r", "a", 0, 30, false, 0), hold("r", "b", 5, 30, false, 0), hold("r", "c", 6, 30, false, 0),
			hold("r", "d", 29, 40, false, 0),
		}, []string{"overlap"}},
		{"readers share, a writer excludes them", 0, []Hold{
			hold("r", "r1", 0, 10, false, 0), hold("r", "r2", 1, 10, false, 0), hold("r", "w", 5, 15, true, 9),
			hold("r", "r3", 12, 20, false, 0),
		}, []string{"overlap", "overlap"}},
		{"recipes do not mix", -1, []Hold{
			hold("r", "a", 0, 10, true, 1), hold("s", "b", 5, 20, true, 1),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLedger()
			if tc.limit >= 0 {
				l.SetLimit("r", tc.limit)
			}
			for _, h := range tc.holds {
				l.Record(h)
			}
			var kinds []string
			for _, v := range l.Check() {
				kinds = append(kinds, v.Kind)
				assert.NotEmpty(t, v.String())
			}
			assert.Equal(t, tc.want, kinds)
		})
	}
}

func TestLedger_ViolationNamesTheHoldsInvolved(t *testing.T) {
	l := NewLedger()
	l.Record(hold("mutex", "go-1", 0, 10, true, 1))
	l.Record(hold("mutex", "curator", 5, 20, true, 2))
	vs := l.Check()
	require.Len(t, vs, 1)
	assert.Equal(t, at(5), vs[0].At)
	require.Len(t, vs[0].Holds, 2)
	assert.Equal(t, "go-1", vs[0].Holds[0].Holder)
	assert.Equal(t, "curator", vs[0].Holds[1].Holder)
	assert.Contains(t, vs[0].String(), "curator")
}

func TestStateLog_ChecksThePathOfTheStateMachine(t *testing.T) {
	type sc = framework.StateChange
	for _, tc := range []struct {
		name    string
		changes []sc
		bad     bool
	}{
		{"connected only", []sc{{State: framework.Connected, SessionID: 1}}, false},
		{"a suspension, same session", []sc{
			{State: framework.Connected, SessionID: 1}, {State: framework.Suspended, SessionID: 1},
			{State: framework.Reconnected, SessionID: 1},
		}, false},
		{"an expiry, new session", []sc{
			{State: framework.Connected, SessionID: 1}, {State: framework.Suspended, SessionID: 1},
			{State: framework.Lost, SessionID: 1}, {State: framework.Reconnected, SessionID: 2, NewSession: true},
			{State: framework.Suspended, SessionID: 2}, {State: framework.Reconnected, SessionID: 2},
		}, false},
		{"nothing", nil, true},
		{"ends suspended", []sc{{State: framework.Connected, SessionID: 1}, {State: framework.Suspended, SessionID: 1}}, true},
		{"lost while connected", []sc{
			{State: framework.Connected, SessionID: 1}, {State: framework.Lost, SessionID: 1},
			{State: framework.Reconnected, SessionID: 2, NewSession: true},
		}, true},
		{"a new session without a loss", []sc{
			{State: framework.Connected, SessionID: 1}, {State: framework.Suspended, SessionID: 1},
			{State: framework.Reconnected, SessionID: 2, NewSession: true},
		}, true},
		{"the lost session again", []sc{
			{State: framework.Connected, SessionID: 1}, {State: framework.Suspended, SessionID: 1},
			{State: framework.Lost, SessionID: 1}, {State: framework.Reconnected, SessionID: 1},
		}, true},
		{"connected twice", []sc{{State: framework.Connected, SessionID: 1}, {State: framework.Connected, SessionID: 2}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l StateLog
			for _, c := range tc.changes {
				l.Listen(c)
			}
			problems := l.Check()
			assert.Equal(t, tc.bad, len(problems) > 0, "%v", problems)
		})
	}
}

func TestLedger_AStaleCuratorHoldMakesTheViolationTheJavaSides(t *testing.T) {
	stale := hold("mutex", CuratorHolder, 0, 30, true, 0xd00001016)
	stale.Node, stale.Stale = "/m/_c_x-lock-0000000001", "held with a node of session 0x1, not of its live session 0x2"
	fresh := hold("mutex", CuratorHolder, 0, 30, true, 0xd00001016)
	goHold := hold("mutex", "go-0", 10, 12, true, 0xe00000006)

	l := NewLedger()
	l.Record(stale)
	l.Record(goHold)
	vs := l.Check()
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Java, "session 0x1")
	assert.Contains(t, vs[0].Java, stale.Node)

	l = NewLedger()
	l.Record(fresh)
	l.Record(goHold)
	vs = l.Check()
	require.Len(t, vs, 1)
	assert.Empty(t, vs[0].Java, "a Curator hold backed by its live session's node explains nothing")

	r := NewReport(time.Second, 1, 1)
	r.AddViolations([]Violation{{Kind: "overlap", Java: "curator: stale"}, {Kind: "overlap"}})
	assert.Len(t, r.JavaViolations, 1)
	assert.Len(t, r.Violations, 1)
	assert.Equal(t, []string{"1 violations"}, r.Problems(), "only our violations fail a run")
}
