// Package zkpath holds the pure string rules that zkrecipes shares with
// ZooKeeper and Apache Curator 5.x: path validation, path joining and
// splitting, Curator's protected node names, ZooKeeper sequence suffixes and
// the order in which lock recipes sort the children of a lock directory.
//
// What it guarantees:
//
//   - Validate accepts exactly the paths that ZooKeeper's
//     PathUtils.validatePath accepts, and ValidateSequential exactly those
//     Curator accepts for a sequential create. ZooKeeper checks UTF-16 code
//     units, so every rune outside the Basic Multilingual Plane (a surrogate
//     pair in Java) is rejected, as is invalid UTF-8.
//   - ProtectedName, ProtectionID and Unprotect produce and recognise the
//     same "_c_<uuid>-" names as Curator's protected mode, so a Go process
//     and a Java process can share one lock.
//   - SortKey and SortNodes order children exactly as Curator's
//     fixForSorting followed by a stable sort does. Within the characters
//     that Validate accepts, bytewise order of UTF-8 equals Java's
//     String.compareTo order, so the two agree on every valid name.
//
// What it does not do: it performs no I/O, so it cannot tell whether a node
// exists, and it does not repair the ordering that breaks when a parent's
// sequence counter overflows past 2^31 (Curator does not either, and keeping
// the same order is what keeps the recipes compatible). Join and the path
// splitting helpers do not validate their input.
//
// The package has no state; every function is safe for concurrent use.
package zkpath
