// Package sharedcount is a 32-bit count shared through one ZooKeeper node,
// compatible with Apache Curator's SharedCount: the node holds the count as
// 4 bytes, big-endian (Java's ByteBuffer.putInt), and every write is a
// setData, versioned for compare-and-set. A Go process and a Java process
// using Curator 5.x on the same path read and write the same count.
//
// A SharedCount is a handle: New does no I/O, and the node is created, with
// the seed, by the first read that finds it missing (as Curator's start
// does), with container parents.
//
// Guarantees:
//
//   - Get always asks the server; Cached answers from the value its watch
//     keeps current and asks the server only when no watch is outstanding,
//     so a waiter can follow the count at no cost per look.
//   - TrySet writes only if the node's version is still the one the caller
//     read: of several writers racing from one version, exactly one wins,
//     also when answers are lost: a write whose answer was lost is reported
//     applied, or as ErrOutcomeUnknown when the client cannot prove whether
//     it ran, never as not applied.
//   - Watch delivers the value when it starts and after every change, to
//     the latest value (changes in quick succession may be coalesced), and
//     re-arms its watch across connection loss and session expiry.
//   - Node data that is not 4 bytes long is reported as ErrMalformedCount,
//     never read as a number.
//
// Not guaranteed: a Cached or watched value is as fresh as the server the
// client is connected to, and may lag a write made through another server
// by the time ZooKeeper takes to deliver a watch event.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package sharedcount
