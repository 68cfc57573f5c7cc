package watches

import "github.com/zkrecipes/zkrecipes/framework/internal/wire"

// maxRestoreBody bounds one setWatches request's body, as ZooKeeper's own
// client does: a server rejects packets over its jute.maxbuffer (1 MB by
// default, configurable lower).
const maxRestoreBody = 128 << 10

// Batch is one setWatches or setWatches2 request.
type Batch struct {
	Zxid   int64
	Paths  RestoreSet // the lists alone
	Legacy bool       // setWatches: without the persistent lists
	// Recursive holds the paths of the restore's recursive list, in this
	// batch or another: its persistent list leaves them out (covered.go).
	Recursive map[string]bool
	// LeftOut, of a ChangedSince probe, is told the paths left out of the
	// request as it is written (see WriteWatches); it must not block.
	LeftOut func(RestoreSet)
}

// Body encodes paths as b's request body.
func (b Batch) Body(paths RestoreSet) []byte {
	var w wire.JuteWriter
	w.Int64(b.Zxid)
	for _, l := range [][]string{paths.Data, paths.Exist, paths.Child} {
		w.Strings(l)
	}
	if !b.Legacy {
		w.Strings(paths.Persistent)
		w.Strings(paths.Recursive)
	}
	return w.B
}

// RestoreBatches divides rs into setWatches2 requests of at most
// maxRestoreBody bytes each (a single path longer than that gets a body of
// its own). The lists keep their order across the batches: every one-shot
// watch comes before every persistent one, which the server then sets
// after it.
func RestoreBatches(zxid int64, rs RestoreSet) []Batch {
	lists := [5][]string{rs.Data, rs.Exist, rs.Child, rs.Persistent, rs.Recursive}
	var recursive map[string]bool
	if len(rs.Persistent) > 0 && len(rs.Recursive) > 0 {
		recursive = make(map[string]bool, len(rs.Recursive))
		for _, p := range rs.Recursive {
			recursive[p] = true
		}
	}
	var batches []Batch
	var batch [5][]string
	size := 0
	flush := func() {
		paths := RestoreSet{Data: batch[0], Exist: batch[1], Child: batch[2], Persistent: batch[3], Recursive: batch[4]}
		batches = append(batches, Batch{Zxid: zxid, Paths: paths, Recursive: recursive})
		batch, size = [5][]string{}, 0
	}
	for i, list := range lists {
		for _, p := range list {
			if size > 0 && size+4+len(p) > maxRestoreBody {
				flush()
			}
			batch[i] = append(batch[i], p)
			size += 4 + len(p)
		}
	}
	if size > 0 {
		flush()
	}
	return batches
}

// SetWatchesBatches divides rs (no persistent watches) into setWatches
// requests: setWatches is setWatches2 without its two last lists.
func SetWatchesBatches(zxid int64, rs RestoreSet) []Batch {
	batches := RestoreBatches(zxid, rs)
	for i := range batches {
		batches[i].Legacy = true
	}
	return batches
}
