package leases

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// stampMagic opens the data of a time-bounded lease node.
const stampMagic = "#zkrecipes-lease/1"

// Mode says what ends a time-bounded lease whose holder stops renewing.
type Mode string

// The modes of a time-bounded lease.
const (
	// SessionMode: an ephemeral lease node of the holder's session, given up
	// by the holder's own process when its bound passes without a renewal.
	SessionMode Mode = "session"
	// TTLMode: a persistent lease node with a time to live, which outlives
	// the holder's session and is removed by the server when the holder
	// stops renewing (see WithTTL in package semaphore).
	TTLMode Mode = "ttl"
)

// Stamp is what the data of a time-bounded lease node tells operators: the
// bound, and when and how often the holder renewed it. The data of such a
// node is
//
//	#zkrecipes-lease/1
//	mode=session
//	bound=30s
//	renewed=2026-11-23T17:40:00.123456789Z
//	renewals=3
//	holder=5f0c...
//
//	<the lease's own data>
//
// lines of key=value after a first line that marks the format, then an
// empty line, then the data given to the semaphore (WithData), byte for
// byte. renewed and renewals are missing until the first renewal; holder
// names the Lease value that wrote the data (a restarted process that
// resumes a lease writes its own). Curator does not read lease data, so
// such nodes count as leases for Curator processes all the same. The times
// are the holder's wall clock, for people to read: no process compares
// them with its own clock.
type Stamp struct {
	Mode     Mode
	Bound    time.Duration
	Renewed  time.Time // zero until the first renewal
	Renewals int
	Holder   string
}

// Encode returns the node data of a lease with this stamp and data.
func (s Stamp) Encode(data []byte) []byte {
	var b bytes.Buffer
	b.WriteString(stampMagic + "\n")
	fmt.Fprintf(&b, "mode=%s\nbound=%s\n", s.Mode, s.Bound)
	if !s.Renewed.IsZero() {
		fmt.Fprintf(&b, "renewed=%s\nrenewals=%d\n", s.Renewed.UTC().Format(time.RFC3339Nano), s.Renewals)
	}
	if s.Holder != "" {
		fmt.Fprintf(&b, "holder=%s\n", s.Holder)
	}
	b.WriteString("\n")
	b.Write(data)
	return b.Bytes()
}

// ParseStamp splits the data of a lease node into its stamp and the lease's
// own data. ok is false, and data is returned whole, for a node that is not
// time-bounded (or whose stamp is malformed), such as a Curator process's
// lease.
func ParseStamp(nodeData []byte) (s Stamp, data []byte, ok bool) {
	rest, found := bytes.CutPrefix(nodeData, []byte(stampMagic+"\n"))
	if !found {
		return Stamp{}, nodeData, false
	}
	head, data, found := bytes.Cut(rest, []byte("\n\n"))
	if !found {
		return Stamp{}, nodeData, false
	}
	for _, line := range strings.Split(string(head), "\n") {
		key, value, _ := strings.Cut(line, "=")
		var err error
		switch key {
		case "mode":
			s.Mode = Mode(value)
		case "bound":
			s.Bound, err = time.ParseDuration(value)
		case "renewed":
			s.Renewed, err = time.Parse(time.RFC3339Nano, value)
		case "renewals":
			s.Renewals, err = strconv.Atoi(value)
		case "holder":
			s.Holder = value
		}
		if err != nil {
			return Stamp{}, nodeData, false
		}
	}
	if s.Bound <= 0 || (s.Mode != SessionMode && s.Mode != TTLMode) {
		return Stamp{}, nodeData, false
	}
	return s, data, true
}
