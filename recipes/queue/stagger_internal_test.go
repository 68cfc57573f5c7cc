package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A consumer that hears others take items takes those of its buckets at
// once, and another's only after it has waited; one that hears no one else
// takes every item at once, in order.
func TestStagger_TakesItsOwnBucketsAtOnceAndHelpsLater(t *testing.T) {
	s := newStagger()
	ready := make([]string, 8)
	for i := range ready {
		ready[i] = fmt.Sprintf("queue-%010d", i)
	}
	now := time.Now()
	justHeard := func(string) time.Time { return now }
	mine, wait := s.pick(ready, justHeard, now)
	assert.Equal(t, ready, mine, "alone: everything, in order")
	assert.Zero(t, wait)

	s.learn(outcome{name: ready[3], took: true, dur: time.Millisecond})
	s.heard(5) // four deletions were another's
	assert.False(t, s.alone)
	mine, wait = s.pick(ready, justHeard, now)
	for _, name := range mine {
		assert.Equal(t, bucketOf(ready[3]), bucketOf(name), "only its own bucket's items at once")
	}
	assert.Contains(t, mine, ready[3])
	assert.GreaterOrEqual(t, wait, s.step, "another's waits a step at least")

	later := now.Add(wait)
	mine, _ = s.pick(ready, justHeard, later.Add(time.Duration(helperSteps+1)*s.step))
	assert.NotEmpty(t, mine, "waited long enough: the consumer helps")

	s.learn(outcome{name: ready[3], gone: true})
	assert.False(t, s.owned[bucketOf(ready[3])], "lost to another: the bucket is the other's")
}
