module zkbench/zkrecipes

go 1.26.0

require (
	github.com/go-zookeeper/zk v1.0.4
	github.com/zkrecipes/zkrecipes v0.0.0
	zkbench/gokit v0.0.0
)

require github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261 // indirect

replace (
	github.com/zkrecipes/zkrecipes => ../..
	zkbench/gokit => ../../../shared/bench-anchors/gokit
)

replace github.com/Azure/go-ansiterm => github.com/Azure/go-ansiterm v0.0.0-20250102033503-faa5f7b0171c
