package wire

// Opcodes of the requests the carrier sends (ZooKeeper's ZooDefs.OpCode).
const (
	OpGetData       = 4
	OpExists        = 3
	OpGetChildren2  = 12
	OpRemoveWatches = 18
	OpMultiRead     = 22
	OpSetWatches    = 101
	OpSetWatches2   = 105
	OpAddWatch      = 106

	// OpRemovePersistentWatch is no opcode: the carrier records under it
	// that the server cannot remove a persistent watch by its mode.
	OpRemovePersistentWatch = -1000
)

// Watcher types of removeWatches (ZooKeeper's Watcher.WatcherType).
const (
	WatcherChildren            = 1
	WatcherData                = 2
	WatcherAny                 = 3
	WatcherPersistent          = 4
	WatcherPersistentRecursive = 5
)

// ZooKeeper's error codes the client reads in carried replies.
const (
	CodeOK            = 0
	codeUnimplemented = -6
	CodeNoNode        = -101
	CodeNoWatcher     = -121
	// CodeMarshallingError is what a server before 3.9 answers a
	// removeWatches of a persistent watcher type it cannot read.
	CodeMarshallingError = -5
)
