package queue

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Curator's priorityToString: a sign digit and 8 upper-case hex digits,
// so that string order is numeric order, negatives first.
func TestPriorityName_IsCuratorsAndSortsAsNumbers(t *testing.T) {
	assert.Equal(t, "queue-100000005", priorityName(5))
	assert.Equal(t, "queue-0FFFFFFFF", priorityName(-1))
	assert.Equal(t, "queue-080000000", priorityName(math.MinInt32))
	assert.Equal(t, "queue-17FFFFFFF", priorityName(math.MaxInt32))
	ps := []int32{math.MaxInt32, 3, -2, 0, math.MinInt32, -1, 1}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = priorityName(p) + "0000000001"
	}
	priority.sortItems(names)
	slices.Sort(ps)
	for i, p := range ps {
		assert.Equal(t, priorityName(p)+"0000000001", names[i])
	}
}

// Curator's epochToString and getEpoch, and the delay queue's order.
func TestDelayName_IsCuratorsAndSortsByTime(t *testing.T) {
	assert.Equal(t, "queue-|0000000A|", delayName(10))
	assert.Equal(t, "queue-|18C6D4F2A00|", delayName(0x18C6D4F2A00))
	assert.Equal(t, int64(0x18C6D4F2A00), epochOf("queue-|18C6D4F2A00|0000000003"))
	for _, bad := range []string{"queue-0000000001", "queue-||0000000001", "queue-|zz|0000000001", "|5|x"} {
		assert.Zero(t, epochOf(bad), bad)
	}
	names := []string{delayName(300) + "0000000001", delayName(0x1000) + "0000000000", delayName(20) + "0000000005", "queue-0000000009"}
	delay.sortItems(names)
	assert.Equal(t, []string{"queue-0000000009", "queue-|00000014|0000000005", "queue-|0000012C|0000000001", "queue-|00001000|0000000000"}, names)
	now := time.UnixMilli(1000)
	assert.Equal(t, 500*time.Millisecond, delay.wait(delayName(1500)+"0000000001", now))
	assert.LessOrEqual(t, delay.wait(delayName(500)+"0000000001", now), time.Duration(0))
	assert.Zero(t, fifo.wait(delayName(5000)+"0000000001", now))
}

// Curator's fixId and parseId, and the id queue's order (by sequence).
func TestIDName_IsCuratorsAndSortsBySequence(t *testing.T) {
	assert.Equal(t, "queue-|a_b_c|", idName("a/b|c"))
	id, cleaned := idOf("queue-|order-7|0000000012")
	assert.Equal(t, "order-7", id)
	assert.Equal(t, "queue-0000000012", cleaned)
	id, cleaned = idOf("queue-0000000012")
	assert.Equal(t, "queue-0000000012", id)
	assert.Equal(t, "queue-0000000012", cleaned)
	names := []string{"queue-|z|0000000003", "queue-|a|0000000007", "queue-|m|0000000001"}
	ids.sortItems(names)
	assert.Equal(t, []string{"queue-|m|0000000001", "queue-|z|0000000003", "queue-|a|0000000007"}, names)
}

// An item given back keeps its priority, time or id.
func TestRequeueName_KeepsAllButTheSequence(t *testing.T) {
	assert.Equal(t, "queue-", requeueName("queue-0000000042"))
	assert.Equal(t, "queue-100000005", requeueName("queue-1000000050000000042"))
	assert.Equal(t, "queue-|a|", requeueName("queue-|a|0000000042"))
	assert.Equal(t, "queue-", requeueName("queue-"), "no sequence: the plain prefix")
}
