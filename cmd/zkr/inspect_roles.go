package main

import (
	"net"
	"strings"
)

// roleFunc judges node i of the sorted queue nodes.
type roleFunc func(nodes []Node, i int) string

// mutexRoles: the first lock node holds, the others wait.
func mutexRoles(nodes []Node, i int) string {
	switch {
	case nodes[i].Kind == "other":
		return "other"
	case firstOfKind(nodes, "lock") == i:
		return "holder"
	default:
		return "waiter"
	}
}

// latchRoles: the first latch node leads (a leader latch, Curator's or
// package leader's), the others wait.
func latchRoles(nodes []Node, i int) string {
	switch {
	case nodes[i].Kind == "other":
		return "other"
	case firstOfKind(nodes, "latch") == i:
		return "leader"
	default:
		return "waiter"
	}
}

// guardRoles: the first node of a semaphore's guard queue is acquiring a
// lease, the others wait for the guard.
func guardRoles(nodes []Node, i int) string {
	if r := mutexRoles(nodes, i); r != "holder" {
		return r
	}
	return "acquiring"
}

// semaphoreRoles: the first n lease nodes hold.
func semaphoreRoles(n int) roleFunc {
	return func(nodes []Node, i int) string {
		switch {
		case nodes[i].Kind == "other":
			return "other"
		case i < n:
			return "holder"
		default:
			return "waiter"
		}
	}
}

// rwRoles judges a read/write queue as Curator's drivers do: a writer
// holds at the head; a reader holds when no writer is before it, or when the
// writer before it is of its own session (a downgrade, as zkr sees it).
func rwRoles(nodes []Node, i int) string {
	n := nodes[i]
	switch n.Kind {
	case "write":
		if i == 0 {
			return "holder"
		}
		return "waiter"
	case "read":
		for j := range i {
			if nodes[j].Kind == "write" && (j != 0 || nodes[j].Session != n.Session) {
				return "waiter"
			}
		}
		return "holder"
	default:
		return "other"
	}
}

// firstOfKind returns the index of the first node of kind, or -1.
func firstOfKind(nodes []Node, kind string) int {
	for i, n := range nodes {
		if n.Kind == kind {
			return i
		}
	}
	return -1
}

// acquiringLease judges, when the maximum is unknown, the newest lease node
// of the session at the head of the guard queue as acquiring, not holding:
// an acquirer keeps the guard while its lease node waits for a free lease
// (it may also hold in a moment and let the guard go).
func acquiringLease(r *Report) {
	session := ""
	for _, n := range r.Waiters {
		if n.Kind == "lock" && n.Role == "acquiring" {
			session = n.Session
		}
	}
	last := -1
	for i, n := range r.Holders {
		if n.Session == session && n.Kind == "lease" {
			last = i
		}
	}
	if last < 0 {
		return
	}
	n := r.Holders[last]
	n.Role = "acquiring"
	r.Holders = append(r.Holders[:last:last], r.Holders[last+1:]...)
	r.Waiters = append([]Node{n}, r.Waiters...)
}

// asElection makes a mutex report a leader selector's election when every
// lock node's data is a participant id (see participantID): its holder
// leads.
func asElection(r *Report) {
	nodes := append(append([]Node{}, r.Holders...), r.Waiters...)
	if len(nodes) == 0 {
		return
	}
	for _, n := range nodes {
		if !participantID(n) {
			return
		}
	}
	r.Recipe = recipeElection
	for i := range r.Holders {
		r.Holders[i].Role = "leader"
	}
}

// participantID tells whether a lock node's data is a selector's
// participant id rather than what a mutex writes: printable text, not
// empty (a Go mutex's default), not zkr lock's stamp, not an IP address
// (Curator's default data) and not a revocation request.
func participantID(n Node) bool {
	switch d := n.Data; {
	case d == "", d == revokeMessage:
		return false
	case strings.HasPrefix(d, "zkr ") && strings.Contains(d, " pid "):
		return false
	default:
		return net.ParseIP(d) == nil
	}
}
