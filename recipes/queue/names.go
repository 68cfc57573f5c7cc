package queue

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// The names of queue nodes, as Curator 5.x makes and reads them. Every
// item of a DistributedQueue and its kinds is a persistent sequential node
// whose name starts with itemPrefix; the server appends a 10-digit
// sequence. Before the sequence, a priority queue writes the priority, a
// delay queue and an id queue a value between two separators:
//
//	queue-0000000007                 Queue
//	queue-1000000050000000007        PriorityQueue, priority 5
//	queue-0FFFFFFFF0000000007        PriorityQueue, priority -1
//	queue-|18C6D4F2A00|0000000007    DelayQueue, until that epoch (ms, hex)
//	queue-|order-42|0000000007       IDQueue, id "order-42"
//
// A SimpleDistributedQueue's items are "qn-" and the sequence.
const (
	itemPrefix   = "queue-"
	simplePrefix = "qn-"
	separator    = '|'
)

// kind is what a queue's kind changes: the names of its items, the order
// in which consumers take them and, for a delay queue, when.
type kind int

const (
	fifo kind = iota
	priority
	delay
	ids
)

// String names the kind, for errors and logs.
func (k kind) String() string {
	return [...]string{"queue", "priority queue", "delay queue", "id queue"}[k]
}

// priorityName is the part of a priority queue's item name before the
// sequence, Curator's priorityToString: "1" for a priority of 0 or more,
// "0" below, then the 32 bits as 8 upper-case hex digits, so that string
// order is priority order, the lowest first.
func priorityName(p int32) string {
	sign := "1"
	if p < 0 {
		sign = "0"
	}
	return fmt.Sprintf("%s%s%08X", itemPrefix, sign, uint32(p))
}

// delayName is the part of a delay queue's item name before the sequence:
// the epoch in milliseconds as upper-case hex (8 digits at least) between
// separators, as Curator's epochToString writes it.
func delayName(epochMillis int64) string {
	return fmt.Sprintf("%s%c%08X%c", itemPrefix, separator, epochMillis, separator)
}

// idName is the part of an id queue's item name before the sequence: the
// id, with '/' and '|' replaced by '_' as Curator's fixId does, between
// separators.
func idName(id string) string {
	return itemPrefix + string(separator) + fixID(id) + string(separator)
}

// fixID is an id as it goes into a node's name, Curator's fixId.
func fixID(id string) string {
	return strings.NewReplacer("/", "_", string(separator), "_").Replace(id)
}

// epochOf reads the epoch of a delay queue's item name as Curator's
// getEpoch does: the hex number between the last two separators, or 0 when
// the name has none (the item is due at once).
func epochOf(name string) int64 {
	last := strings.LastIndexByte(name, separator)
	if last <= 0 {
		return 0
	}
	first := strings.LastIndexByte(name[:last], separator)
	if first <= 0 || last <= first+1 {
		return 0
	}
	n, err := strconv.ParseInt(name[first+1:last], 16, 64)
	if err != nil {
		return 0
	}
	return n
}

// idOf splits an id queue's item name as Curator's parseId does: the id
// between the first two separators, and the name without it, by which the
// items are sorted. A name without two separators is its own id.
func idOf(name string) (id, cleaned string) {
	first := strings.IndexByte(name, separator)
	if first < 0 {
		return name, name
	}
	second := strings.IndexByte(name[first+1:], separator)
	if second < 0 {
		return name, name
	}
	second += first + 1
	return name[first+1 : second], name[:first] + name[second+1:]
}

// isItem reports whether a child of the queue's directory is an item of
// a DistributedQueue; Curator's consumers pass over the others ("foreign
// node in queue path").
func isItem(name string) bool { return strings.HasPrefix(name, itemPrefix) }

// sortItems orders items as Curator's consumers of the kind take them:
// by name (Queue, PriorityQueue), by name without the id (IDQueue), by
// epoch (DelayQueue; by name among equal epochs, where Curator keeps the
// server's listing order).
func (k kind) sortItems(names []string) {
	switch k {
	case fifo, priority:
		slices.Sort(names)
	case ids:
		slices.SortStableFunc(names, func(a, b string) int {
			_, ca := idOf(a)
			_, cb := idOf(b)
			return strings.Compare(ca, cb)
		})
	case delay:
		slices.SortFunc(names, func(a, b string) int {
			return cmp.Or(cmp.Compare(epochOf(a), epochOf(b)), strings.Compare(a, b))
		})
	}
}

// wait says how long the item must wait before a consumer may take it:
// zero but for a delay queue's item whose epoch is still to come.
func (k kind) wait(name string, now time.Time) time.Duration {
	if k != delay {
		return 0
	}
	return time.Duration(epochOf(name)-now.UnixMilli()) * time.Millisecond
}

// requeueName is the name before the sequence under which an item that a
// consumer gave back goes to the end of the queue: its own, without the
// sequence, so that it keeps its priority, epoch or id. (Curator's
// priority and delay queues requeue under "queue-" alone.)
func requeueName(name string) string {
	if seq, ok := zkpath.SequenceOf(name); ok {
		if rest, found := strings.CutSuffix(name, fmt.Sprintf("%010d", seq)); found {
			return rest
		}
	}
	return itemPrefix
}

// compare orders two item names as sortItems does, the name breaking
// ties, so that a sorted view can be searched.
func (k kind) compare(a, b string) int {
	switch k {
	case ids:
		_, ca := idOf(a)
		_, cb := idOf(b)
		return cmp.Or(strings.Compare(ca, cb), strings.Compare(a, b))
	case delay:
		return cmp.Or(cmp.Compare(epochOf(a), epochOf(b)), strings.Compare(a, b))
	}
	return strings.Compare(a, b)
}
