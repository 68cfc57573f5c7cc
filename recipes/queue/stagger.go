package queue

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// stagger keeps the consumers of one queue from all reaching for the same
// item: every consumer hears of an item at about the same time, and a take
// that loses costs a request or two. The items fall into buckets by a
// hash of their names, and a bucket is the consumer's that took its last
// item, as far as the consumer knows: it takes the items of its buckets at
// once, in the queue's order, and another's only once that has waited a
// step (a few takes' time) and a further wait of its own per bucket (so
// that helpers come one at a time), which is how a bucket whose consumer
// is gone or behind passes to another. A consumer that loses a bucket's
// item to another takes the bucket for the other's. A consumer that hears
// no one else take items (alone) takes every item at once, in order. The
// run loop's alone.
type stagger struct {
	seed  uint64
	owned [buckets]bool
	step  time.Duration
	took  time.Duration // an average of the consumer's successful takes

	alone   bool
	mine    uint64 // the consumer's takes
	foreign uint64 // the deletions heard that were not the consumer's
	quiet   uint64 // the view's deletions when the last foreign one was heard
}

// Bounds of the stagger: buckets of items; a step is four average takes,
// within [minStep, maxStep], so that a consumer busy with a few items of
// its own still comes to the next before another does; helpers wait up to
// helperSteps more; a consumer is alone again after aloneAfter deletions,
// all its own.
const (
	buckets     = 64
	minStep     = 2 * time.Millisecond
	maxStep     = 20 * time.Millisecond
	firstTake   = time.Millisecond
	helperSteps = 8
	aloneAfter  = 64
)

func newStagger() *stagger {
	return &stagger{seed: rand.Uint64(), alone: true, took: firstTake, step: stepOf(firstTake)}
}

func stepOf(took time.Duration) time.Duration { return min(max(4*took, minStep), maxStep) }

func bucketOf(name string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return int(h.Sum32() % buckets)
}

// heard notes the view's count of deletions: one not the consumer's ends
// its being alone.
func (s *stagger) heard(deleted uint64) {
	switch foreign := deleted - min(s.mine, deleted); {
	case foreign > s.foreign:
		s.alone, s.foreign, s.quiet = false, foreign, deleted
	case deleted-s.quiet >= aloneAfter:
		s.alone = true
	}
}

// pick returns the items of ready (in the queue's order) to take now, and
// how long until the next one is another's to take. heardAt says when the
// view heard of an item (zero: listed, so it has waited).
func (s *stagger) pick(ready []string, heardAt func(string) time.Time, now time.Time) (mine []string, wait time.Duration) {
	if s.alone {
		return ready, 0
	}
	steal := ""
	for _, name := range ready {
		b := bucketOf(name)
		if s.owned[b] {
			mine = append(mine, name)
			continue
		}
		left := heardAt(name).Add(s.helperWait(b)).Sub(now)
		switch {
		case left > 0:
			if wait == 0 || left < wait {
				wait = left
			}
		case steal == "":
			steal = name
		}
	}
	if len(mine) == 0 && steal != "" {
		mine = []string{steal}
	}
	return mine, wait
}

// helperWait is how long an item of bucket b waits for its consumer
// before this one takes it.
func (s *stagger) helperWait(b int) time.Duration {
	x := s.seed ^ uint64(b)*0x9E3779B97F4A7C15 // splitmix64's finish: a wait of its own per consumer and bucket
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	x ^= x >> 31
	return s.step + time.Duration(x%(helperSteps*16))*s.step/16
}

// learn adjusts the buckets and the step by a take's outcome.
func (s *stagger) learn(o outcome) {
	b := bucketOf(o.name)
	switch {
	case o.took:
		s.owned[b] = true
		s.mine++
		s.took = (7*s.took + o.dur) / 8
		s.step = stepOf(s.took)
	case o.gone, o.held != "":
		s.owned[b] = false // another's now
	}
}
