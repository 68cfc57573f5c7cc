// Package lockdriver is for authors of recipes built on the lock engine of
// package mutex (mutex.NewWithDriver), as Curator's LockInternalsDriver
// is: a Driver judges, from the children of a lock's directory alone, who
// holds the lock and which nodes a waiter watches. A user of the mutex, the
// read/write lock or the election needs nothing here.
//
// A Driver is a pure function of the children's names, so every process,
// Curator's included, given the same children agrees on the holder; it is
// table-testable without a server. The helpers order and judge a queue as
// Curator does: SortQueue sorts by what follows the lock's name (Curator's
// fixForSorting), never by the random protection id in front of it;
// InFront selects the nodes in front of the caller's, and Nearest keeps the
// few a waiter watches (at most MaxWatch). StandardDriver is Curator's
// standard driver, the mutex's.
//
// Place, Spot and Turn are the types of mutex.WithPlace and mutex.WithTurn:
// a lock that takes the place of a node its owner holds on another lock
// (the read/write lock's downgrade), and releases that take an owner's turn.
package lockdriver
