package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// usage writes zkr's help.
func usage(w io.Writer) {
	fmt.Fprintln(w, "zkr: ZooKeeper locks, read/write locks, semaphores, leader election, barriers, counters and queues from the shell (zkrecipes, Curator-compatible)")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  zkr %-9s %s\n      %s\n", c.name, c.synopsis, c.summary)
	}
	var common []string
	for _, c := range commands {
		if c.connects {
			common = append(common, c.name)
		}
	}
	fmt.Fprintln(w, "  zkr help [COMMAND]\n  zkr --version\n\nCommon flags of "+
		strings.Join(common[:len(common)-1], ", ")+" and "+common[len(common)-1]+":")
	fs := flag.NewFlagSet("common", flag.ContinueOnError)
	registerConnFlags(fs)
	printFlags(w, fs)
	fmt.Fprintln(w, "\n"+recipesHelp)
	fmt.Fprintln(w, "\n"+exitStatuses)
}

// recipesHelp says which recipe of the library, and of Curator, each
// command speaks, and which ones inspect reads.
const recipesHelp = `Recipes (zkrecipes packages; Curator 5.x processes on the same paths take part):
  lock       recipes/mutex        InterProcessMutex
  rwlock     recipes/rwlock       InterProcessReadWriteLock
  semaphore  recipes/semaphore    InterProcessSemaphoreV2 (recipes/leases: its leases;
                                  recipes/sharedcount: --count-path)
  elect      recipes/leader       LeaderSelector
  watch      recipes/cache        CuratorCache (--depth 0: NodeCache, 1: PathChildrenCache)
  services   recipes/discovery    curator-x-discovery's ServiceDiscovery: the instances, their
                                  ServiceInstance JSON and UriSpec (reads only)
  register   recipes/discovery    ServiceDiscovery.registerService of a dynamic instance
  barrier    recipes/barrier      DistributedBarrier (set, remove, wait),
                                  DistributedDoubleBarrier (enter)
  counter    recipes/atomicvalue  DistributedAtomicLong (--int: DistributedAtomicInteger)
  queue      recipes/queue        DistributedQueue (--kind priority, delay, id: DistributedPriorityQueue,
                                  DistributedDelayQueue, DistributedIdQueue; simple:
                                  SimpleDistributedQueue)
  get, set, create, ls, stat, rm
             plain nodes, as zkCli.sh (--json for scripts)
  inspect    also reads recipes/leader's LeaderLatch elections; recipes/multilock
             (InterProcessMultiLock) is its parts' locks, inspected one path at a time
  (Go only)  recipes/node         PersistentNode, PersistentTtlNode, GroupMember
             recipes/discovery    also ServiceCache and ServiceProvider`

// commandUsage writes one command's help.
func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: zkr %s %s\n\n%s.\n", c.name, c.synopsis, upperFirst(c.summary))
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", c.help)
	}
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
	fmt.Fprintln(w, "\nzkr help lists the exit statuses.")
}

// printFlags lists the flags of fs, GNU style.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%-30s %s%s\n", line, text, def)
	})
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
