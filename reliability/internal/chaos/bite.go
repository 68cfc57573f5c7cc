package chaos

import (
	"strings"
	"time"
)

// MinBiteRun is the shortest run that must prove its faults bit: in a run
// this long or longer, a fault that never interrupted a hold, never lost an
// answer or never expired a holder's session means the run did not test
// what it claims to, and Report.Problems says so.
const MinBiteRun = 2 * time.Minute

// MinRareBiteRun is the shortest run that must prove that its rarer faults
// bit: a session resumed under a shorter grant, a guarded enqueue and a
// counter increment whose answer was lost (the lost-multi and lost-set
// faults land on one only now and then), a double-barrier round
// broken (a member's enter or leave failed), a queue put whose answer was
// lost and a queue item given back by a fault (its lock went with its
// session mid-item, or its closing transaction failed).
const MinRareBiteRun = 10 * time.Minute

// Interrupted counts the holds that a fault interrupted: signalled lost
// while in force (a hold lost before its acquire returned was never in
// force, and counts as an acquire that failed).
func Interrupted(holds []Hold) int {
	n := 0
	for _, h := range holds {
		if h.Lost && h.End.After(h.Acquired) {
			n++
		}
	}
	return n
}

// ExpiredUnderHolder counts the partitions past the session timeout that
// began while the partitioned client held something: the holds of a
// client are those whose Holder is the expiry's Holder, or starts with it
// and "/".
func ExpiredUnderHolder(holds []Hold, expiries []Expiry) int {
	n := 0
	for _, e := range expiries {
		for _, h := range holds {
			if ownedBy(h.Holder, e.Holder) && !h.Acquired.After(e.From) && h.End.After(e.From) {
				n++
				break
			}
		}
	}
	return n
}

// ownedBy tells whether holder is client's, or one of its parts.
func ownedBy(holder, client string) bool {
	return client != "" && (holder == client || strings.HasPrefix(holder, client+"/"))
}
