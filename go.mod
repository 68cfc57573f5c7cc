module github.com/zkrecipes/zkrecipes

go 1.26.0

require (
	github.com/go-zookeeper/zk v1.0.4
	github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.49.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
