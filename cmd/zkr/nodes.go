package main

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// The markers of Curator's node names (the wire protocol, see DESIGN.md).
const (
	lockMarker      = "lock-"
	latchMarker     = "latch-"
	leaseMarker     = "lease-"
	readMarker      = "__READ__"
	writeMarker     = "__WRIT__"
	protectedPrefix = "_c_"
	uuidLen         = 36
	sequenceLen     = 10
)

// kinds names what each marker makes a node.
var kinds = map[string]string{lockMarker: "lock", latchMarker: "latch", leaseMarker: "lease", readMarker: "read", writeMarker: "write"}

// sortKey is Curator's: the part of name after the last occurrence of the
// last marker found in it, or the whole name when it has none.
func sortKey(name string, markers []string) string {
	best := -1
	for _, m := range markers {
		if i := strings.LastIndex(name, m); i >= 0 && i+len(m) > best {
			best = i + len(m)
		}
	}
	if best < 0 {
		return name
	}
	return name[best:]
}

// newNode describes one child.
func newNode(path, name string, data []byte, stat *zk.Stat, markers []string) Node {
	n := Node{Name: name, Path: path, Sequence: -1, Kind: "other", DataHex: hex.EncodeToString(data)}
	for _, m := range markers {
		if strings.Contains(name, m) {
			n.Kind = kinds[m]
		}
	}
	if len(name) > len(protectedPrefix)+uuidLen && strings.HasPrefix(name, protectedPrefix) && name[len(protectedPrefix)+uuidLen] == '-' {
		n.ProtectionID = name[len(protectedPrefix) : len(protectedPrefix)+uuidLen]
	}
	if len(name) >= sequenceLen {
		if seq, err := strconv.ParseInt(name[len(name)-sequenceLen:], 10, 64); err == nil {
			n.Sequence = seq
		}
	}
	n.AgeMS = -1
	if stat != nil {
		n.Session = "0x" + strconv.FormatInt(stat.EphemeralOwner, 16)
		if stat.Ctime > 0 { // a server that reports no creation time gives no age
			created := time.UnixMilli(stat.Ctime)
			n.Created = created.UTC().Format(time.RFC3339Nano)
			n.AgeMS = max(0, time.Since(created).Milliseconds())
		}
	}
	if stamp, own, ok := leases.ParseStamp(data); ok {
		// The user's data is what follows the stamp.
		n.Lease = leaseOf(stamp)
		n.DataHex, data = hex.EncodeToString(own), own
	}
	if printable(data) {
		n.Data = string(data)
	}
	return n
}

// leaseOf describes a time-bounded lease's stamp.
func leaseOf(s leases.Stamp) *Lease {
	l := &Lease{Mode: string(s.Mode), BoundMS: s.Bound.Milliseconds(), Renewals: s.Renewals, Holder: s.Holder}
	if !s.Renewed.IsZero() {
		l.Renewed = s.Renewed.UTC().Format(time.RFC3339Nano)
	}
	return l
}

// printable tells whether data is UTF-8 text without control characters.
func printable(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		if !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

// joinPath joins a parent path and a child name.
func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// contains tells whether names holds name.
func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// anyContains tells whether a name holds one of the markers.
func anyContains(names []string, markers ...string) bool {
	for _, n := range names {
		for _, m := range markers {
			if strings.Contains(n, m) {
				return true
			}
		}
	}
	return false
}

// nonNil returns names, or an empty slice for nil.
func nonNil(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}
