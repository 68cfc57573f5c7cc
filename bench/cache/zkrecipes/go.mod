module zkbench/cachezkrecipes

go 1.26.0

require (
	github.com/zkrecipes/zkrecipes v0.0.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/go-zookeeper/zk v1.0.4 // indirect
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect
)

replace github.com/zkrecipes/zkrecipes => ../../..
