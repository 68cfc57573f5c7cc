package zkpath

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"strings"
)

// Node-name parts that the recipes write and Curator 5.x expects.
const (
	// LockName is the node name prefix of mutex, semaphore-mutex and
	// leader-selector contenders ("<path>/_c_<uuid>-lock-<seq>").
	LockName = "lock-"
	// LeaseName is the node name prefix of semaphore leases
	// ("<path>/leases/_c_<uuid>-lease-<seq>").
	LeaseName = "lease-"
	// LatchName is the node name prefix of leader-latch participants.
	LatchName = "latch-"
	// ReadLockName is the node name prefix of read-lock contenders. It has
	// the same length as WriteLockName, which the shared sort relies on.
	ReadLockName = "__READ__"
	// WriteLockName is the node name prefix of write-lock contenders.
	WriteLockName = "__WRIT__"
	// RevokeMessage is the data another party writes to a lock node to ask
	// its holder to release it (Curator's Revoker.attemptRevoke).
	RevokeMessage = "__REVOKE__"
)

// uuidLen is the length of a canonical UUID string (8-4-4-4-12).
const uuidLen = 36

// ProtectedPrefix starts every protected node name.
const ProtectedPrefix = "_c_"

// ProtectedPrefixLen is the length of "_c_<uuid>-", the part that protection
// puts in front of a node name: 3 + 36 + 1 = 40.
const ProtectedPrefixLen = len(ProtectedPrefix) + uuidLen + 1

// NewProtectionID returns a new random (version 4) UUID in canonical
// lower-case form, as Curator's UUID.randomUUID().toString() does.
func NewProtectionID() string {
	var u [16]byte
	// crypto/rand.Read never returns an error: it crashes the program
	// instead when the system cannot supply randomness.
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return formatUUID(u)
}

// formatUUID renders u in canonical lower-case 8-4-4-4-12 form.
func formatUUID(u [16]byte) string {
	var b [uuidLen]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// isUUID reports whether s is a UUID in canonical 8-4-4-4-12 form with hex
// digits of either case, which java.util.UUID.fromString accepts. The
// non-canonical forms that Java's lenient parser also takes are rejected:
// Curator never writes them.
func isUUID(s string) bool {
	if len(s) != uuidLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ProtectedName returns name protected with id: "_c_" + id + "-" + name.
// An empty id returns name unchanged, as Curator does for a null id.
func ProtectedName(id, name string) string {
	if id == "" {
		return name
	}
	return ProtectedPrefix + id + "-" + name
}

// ProtectionID returns the protection id carried by name, as found (case
// kept), and whether name is protected. It follows Curator's
// isProtectedZNode: name is longer than ProtectedPrefixLen, starts with
// ProtectedPrefix, has '-' at index 39 and a UUID at indexes 3 to 38.
func ProtectionID(name string) (id string, ok bool) {
	if len(name) <= ProtectedPrefixLen ||
		!strings.HasPrefix(name, ProtectedPrefix) ||
		name[ProtectedPrefixLen-1] != '-' {
		return "", false
	}
	id = name[len(ProtectedPrefix) : ProtectedPrefixLen-1]
	if !isUUID(id) {
		return "", false
	}
	return id, true
}

// HasProtectionID reports whether name starts with "_c_" + id + "-", the
// test Curator uses to find the node of a lost create. An empty id never
// matches.
func HasProtectionID(name, id string) bool {
	n := len(ProtectedPrefix) + len(id)
	return id != "" &&
		len(name) > n &&
		strings.HasPrefix(name, ProtectedPrefix) &&
		name[len(ProtectedPrefix):n] == id &&
		name[n] == '-'
}

// Unprotect returns name without its protection prefix if ProtectionID
// recognises one, and name unchanged otherwise (Curator's normalize).
func Unprotect(name string) string {
	if _, ok := ProtectionID(name); ok {
		return name[ProtectedPrefixLen:]
	}
	return name
}

// NodeName is a node name taken apart by ParseNode.
type NodeName struct {
	Raw          string // the whole name
	ProtectionID string // "" if not protected
	LockName     string // the lock name found (e.g. "lock-"), "" if none
	Sequence     int32  // ZooKeeper's sequence suffix, valid if HasSequence
	HasSequence  bool
}

// ParseNode takes name apart. It finds the last occurrence of the first of
// lockNames that occurs in name, the same occurrence SortKey uses; the
// Sequence is then the whole rest of the name after it, if that rest is a
// ZooKeeper sequence suffix. When no lock name occurs (or none is given) the
// Sequence comes from SequenceOf. ParseNode never panics.
func ParseNode(name string, lockNames ...string) NodeName {
	n := NodeName{Raw: name}
	n.ProtectionID, _ = ProtectionID(name)
	for _, ln := range lockNames {
		if i := strings.LastIndex(name, ln); i >= 0 {
			n.LockName = ln
			n.Sequence, n.HasSequence = parseSequence(name[i+len(ln):])
			return n
		}
	}
	n.Sequence, n.HasSequence = SequenceOf(name)
	return n
}

// SequenceOf parses the sequence suffix that ZooKeeper appends to the name
// of a sequential node: the counter formatted with Java's "%010d", so ten
// digits, or after the counter overflowed a '-' and nine or ten digits.
// A name that ends in '-' and ten digits reads both ways; the non-negative
// reading wins, since recipe names end in '-'. ParseNode with the lock name
// resolves that case.
func SequenceOf(name string) (int32, bool) {
	n := len(name)
	if n >= 10 {
		if seq, ok := parseSequence(name[n-10:]); ok {
			return seq, true
		}
	}
	if n >= 11 {
		return parseSequence(name[n-11:])
	}
	return 0, false
}

// parseSequence parses s if it is exactly what "%010d" makes of an int32:
// ten digits, '-' and nine digits for -999999999..-1, or '-' and ten digits
// without a leading zero below that.
func parseSequence(s string) (int32, bool) {
	digits := s
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		digits = s[1:]
	}
	switch {
	case !neg && len(s) != 10,
		neg && len(s) != 10 && len(s) != 11,
		neg && len(s) == 11 && digits[0] == '0':
		return 0, false
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		if v == 0 {
			return 0, false // "%010d" never writes a negative zero
		}
		v = -v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}
