package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes"
)

// member returns a member that began to enter at enter, entered at once,
// began to leave at leave and left at left (ms); a negative instant is a
// step never taken.
func member(enter, leave, left int) Member {
	ms := func(v int) time.Time {
		if v < 0 {
			return time.Time{}
		}
		return at(v)
	}
	return Member{EnterBegan: ms(enter), Entered: ms(enter), LeaveBegan: ms(leave), Left: ms(left)}
}

func TestDoubleRounds_NoMemberLeavesBeforeTheRoundHasEnteredAndBegunToLeave(t *testing.T) {
	failed := func(m Member, enter, leave error) Member { m.EnterErr, m.LeaveErr = enter, leave; return m }
	tests := []struct {
		name      string
		members   []Member
		violation bool
	}{
		{"all enter, then all leave", []Member{member(0, 50, 60), member(10, 55, 61), member(20, 58, 62)}, false},
		{"one left before the last began to enter", []Member{member(0, 5, 8), member(10, 55, 61)}, true},
		{"one left while a member never began", []Member{member(0, 5, 8), member(-1, -1, -1)}, true},
		{"one left before another began to leave", []Member{member(0, 50, 52), member(10, 55, 61)}, true},
		{"the other's leave failed: its node may have gone with its session", []Member{
			member(0, 50, 52), failed(member(10, 55, 61), nil, zkrecipes.ErrLost)}, false},
		{"the other's enter failed: its node was deleted", []Member{
			member(0, 50, 52), failed(member(10, -1, -1), context.DeadlineExceeded, nil)}, false},
		{"nobody left", []Member{failed(member(0, -1, -1), context.DeadlineExceeded, nil), member(-1, -1, -1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := checkRound(Round{Path: "/r", Members: tt.members})
			assert.Equal(t, tt.violation, len(v) > 0, "%v", v)
		})
	}
}

func TestDoubleRounds_CountsRoundsByOutcome(t *testing.T) {
	d := &DoubleRounds{rounds: []Round{
		{Members: []Member{member(0, 5, 6), member(1, 5, 6)}},
		{Members: []Member{member(0, 5, 6), {EnterBegan: at(0), EnterErr: context.DeadlineExceeded}}},
		{Members: []Member{member(0, 5, 6), {EnterBegan: at(0), LeaveErr: zkrecipes.ErrLost}}},
		{Members: []Member{{EnterBegan: at(0), EnterErr: context.Canceled}}, CutShort: true},
	}}
	assert.Equal(t, map[string]int{"rounds_completed": 1, "rounds_broken": 2, "cut_short": 1,
		"enters_interrupted": 1, "enters_timed_out": 1, "leaves_failed": 1, "members_lost": 1}, d.Counts())
}
