module zkbench/cachedriver

go 1.26.0

require (
	github.com/go-zookeeper/zk v1.0.4
	golang.org/x/sys v0.49.0
)
