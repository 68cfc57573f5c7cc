package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// BenchmarkElect_SIGTERMHandOff measures a rolling restart's hand-off (issue
// 22, promise 7): two zkr elect processes with 20 s sessions; each round
// SIGTERMs the leading one and times the successor's COMMAND start from
// the signal, then starts the terminated participant again behind the new
// leader. A hand-off that waited for the session to expire would take
// 20 s; zkr deletes its node and closes its session on SIGTERM, so the
// successor leads on the deletion's notification. Reported as p50-ms and
// p99-ms over b.N hand-offs; no bound is asserted.
func BenchmarkElect_SIGTERMHandOff(b *testing.B) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	c := client(b)
	starts := announcements(b)
	// COMMAND says which participant it runs for, then sleeps until the
	// group's SIGTERM ends it.
	participant := func(id string) *zkrProcess {
		argv := []string{"sh", "-c", `echo "$1" > "$2"; exec sleep 300`, "announce", id, starts.fifo}
		return startZkr(b, nil, electArgs(servers, path, []string{"--session-timeout", "20s", "--id", id}, argv...)...)
	}
	queued := func() bool { return len(zktest.Children(b, c, path)) == 2 }

	lead, next := "a", "b"
	procs := map[string]*zkrProcess{lead: participant(lead)}
	if got := starts.next(b); got.id != lead {
		b.Fatalf("%s led first, not %s", got.id, lead)
	}
	procs[next] = participant(next)
	require.Eventually(b, queued, time.Minute, 5*time.Millisecond, "the second participant never queued")

	handOffs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		signalled := time.Now()
		if err := procs[lead].cmd.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatal(err)
		}
		got := starts.next(b)
		handOffs = append(handOffs, got.at.Sub(signalled))
		b.StopTimer()
		if got.id != next {
			b.Fatalf("%s led after %s's SIGTERM, not %s", got.id, lead, next)
		}
		// The terminated participant exits and joins again, behind the new
		// leader, for the next round.
		if code := procs[lead].wait(b, time.Minute); code != 143 {
			b.Fatalf("%s exited with %d, not COMMAND's 128+SIGTERM: %s", lead, code, procs[lead].stderr)
		}
		procs[lead] = participant(lead)
		require.Eventually(b, queued, time.Minute, 5*time.Millisecond, "%s never queued again", lead)
		lead, next = next, lead
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(handOffs)
	b.ReportMetric(quantileMS(handOffs, 50), "p50-ms")
	b.ReportMetric(quantileMS(handOffs, 99), "p99-ms")
}

// announcement is one COMMAND's start: the participant's id and when the
// benchmark read it.
type announcement struct {
	id string
	at time.Time
}

// announcer reads the ids COMMANDs write into its fifo as they start.
type announcer struct {
	fifo string
	read chan announcement
}

// announcements makes a fifo and reads it until the benchmark ends.
func announcements(b *testing.B) *announcer {
	a := &announcer{fifo: filepath.Join(b.TempDir(), "starts"), read: make(chan announcement, 16)}
	if err := syscall.Mkfifo(a.fifo, 0o600); err != nil {
		b.Fatal(err)
	}
	// Read and write: the open does not wait for a writer, and a writer
	// that closes does not end the reading.
	f, err := os.OpenFile(a.fifo, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	// Ends when the cleanup closes the fifo.
	go func() {
		s := bufio.NewScanner(f)
		for s.Scan() {
			a.read <- announcement{id: s.Text(), at: time.Now()}
		}
	}()
	return a
}

// next returns the next COMMAND start, failing the benchmark after a
// minute without one.
func (a *announcer) next(b *testing.B) announcement {
	b.Helper()
	select {
	case got := <-a.read:
		return got
	case <-time.After(time.Minute):
		b.Fatal("no COMMAND started within a minute")
		return announcement{}
	}
}

// quantileMS returns the p-th percentile (nearest rank) of sorted ds, in
// milliseconds.
func quantileMS(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	d := sorted[min(len(sorted)-1, (len(sorted)*p+99)/100-1)]
	return float64(d) / float64(time.Millisecond)
}
