// Package footprint has no code: its tests check what a user's program
// pays for importing zkrecipes, so that a change that would make every
// user pay more fails a test instead of going unnoticed.
//
//   - The module graph: a program that imports framework and the recipes
//     gets go-zookeeper, goid, testify and the few modules they need in
//     `go list -m all`, and no container tooling (testcontainers-go, the
//     Docker client), which only the module zktesting/zkcontainer brings.
//   - The packages linked: framework and the recipes import no net/http
//     (nor crypto/tls through it); an HTTP probe of an election is package
//     recipes/leader/leaderhttp, which a program imports only to serve one.
//   - The framework's layers: each of its internal packages (the lease,
//     the wire) imports, of the framework, only the ones below it, so
//     that a change to the wire cannot come to depend on the client.
//
// The tests run the go command of the toolchain that runs them, with the
// environment's module cache and proxy: offline, they need the modules in
// the cache (a build of the repository puts them there).
package footprint
