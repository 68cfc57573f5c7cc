package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// printJSON writes r as JSON: indented, or one line per look under --watch.
func printJSON(w io.Writer, r Report, compact bool) error {
	enc := json.NewEncoder(w)
	if !compact {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(r)
}

// printTable writes r for people.
func printTable(w io.Writer, r Report) error {
	fmt.Fprintln(w, headline(r))
	if len(r.Holders)+len(r.Waiters)+len(r.Others) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POS\tROLE\tKIND\tSEQUENCE\tSESSION\tAGE\tPROTECTION ID\tNODE\tDATA")
	pos := 0
	for _, group := range [][]Node{r.Holders, r.Waiters, r.Others} {
		for _, n := range group {
			pos++
			seq := "-"
			if n.Sequence >= 0 {
				seq = fmt.Sprintf("%010d", n.Sequence)
			}
			id := n.ProtectionID
			if id == "" {
				id = "-"
			}
			session := n.Session
			if session == "0x0" {
				session = "persistent"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", pos, n.Role, n.Kind, seq, session,
				age(n.AgeMS), id, n.Name, shownLease(n.Lease), shownData(n))
		}
	}
	return tw.Flush()
}

// headline is the table's first line.
func headline(r Report) string {
	switch r.Recipe {
	case recipeNone:
		return fmt.Sprintf("%s: no such node", r.Path)
	case recipeEmpty:
		return fmt.Sprintf("%s: empty (nobody holds or waits)", r.Path)
	}
	var b strings.Builder
	if r.Recipe != recipeSemaphore {
		fmt.Fprintf(&b, "%s: %s, %d holding, %d waiting", r.Path, r.Recipe, len(r.Holders), len(r.Waiters))
	} else {
		// Each acquirer queues for the guard lock (under locks/) and, at its
		// head, keeps it while its lease node waits: count the guard queue.
		acquirers := 0
		for _, n := range r.Waiters {
			if n.Kind == "lock" {
				acquirers++
			}
		}
		fmt.Fprintf(&b, "%s: semaphore, %d lease(s) held, %d acquirer(s) waiting", r.Path, len(r.Holders), acquirers)
		switch {
		case r.CountPath != "":
			fmt.Fprintf(&b, ", max %d (count %s)", r.Max, r.CountPath)
		case r.Max > 0:
			fmt.Fprintf(&b, ", max %d", r.Max)
		default:
			b.WriteString(", max unknown (give --count-path or --leases)")
		}
	}
	if len(r.Others) > 0 {
		fmt.Fprintf(&b, ", %d other node(s)", len(r.Others))
	}
	return b.String()
}

// age formats milliseconds for the table; "-" when unknown.
func age(ms int64) string {
	if ms < 0 {
		return "-"
	}
	d := time.Duration(ms) * time.Millisecond
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// maxShownData bounds the data shown in a table cell; --json has it all.
const maxShownData = 60

// shownData is a node's data for the table: quoted text, or hex, cut short.
func shownData(n Node) string {
	switch {
	case n.DataHex == "":
		return "-"
	case n.Data != "":
		if r := []rune(n.Data); len(r) > maxShownData {
			return fmt.Sprintf("%q...", string(r[:maxShownData]))
		}
		return fmt.Sprintf("%q", n.Data)
	case len(n.DataHex) > maxShownData:
		return "0x" + n.DataHex[:maxShownData] + "..."
	default:
		return "0x" + n.DataHex
	}
}

// shownLease is a lease's stamp for the table, before its data: "ttl 30s,
// renewed 2s ago (3), holder 5f0c...: ", or "" for a node without one.
func shownLease(l *Lease) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v", l.Mode, time.Duration(l.BoundMS)*time.Millisecond)
	if renewed, err := time.Parse(time.RFC3339Nano, l.Renewed); err == nil {
		// The holder's clock: an estimate, for people.
		fmt.Fprintf(&b, ", renewed %s ago (%d)", age(max(0, time.Since(renewed).Milliseconds())), l.Renewals)
	}
	if l.Holder != "" {
		fmt.Fprintf(&b, ", holder %s", l.Holder)
	}
	return b.String() + ": "
}
