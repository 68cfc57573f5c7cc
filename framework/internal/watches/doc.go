// Package watches is the client's table of every watch it has set: the
// one-shot watches of the legacy reads and the persistent and recursive
// watches of Client.Watch. The server sends one notification per event
// and connection, whatever watches match; the table fans it out, keeps a
// replica of the watch modes a server before 3.9 holds per path, decides
// each step that takes an unneeded watch off the server, and computes what
// a new connection must set again.
//
// It sends nothing: the framework writes every request, asks the table as
// each is written what it must say (the Write* methods) and tells it each
// answer as it is read (the *Answered methods); a removal that must go to
// the server is handed back through the func given to New. A persistent
// watch is a Subscriber, which the framework's Watch stands behind.
//
// It imports, of the framework, only the wire package below it.
package watches
