package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// registry returns the registry under base, of the shared server.
func registry(t *testing.T, base string) *discovery.Discovery[json.RawMessage] {
	t.Helper()
	d, err := discovery.New[json.RawMessage](client(t), base)
	require.NoError(t, err)
	return d
}

func TestServices_ListsARegisteredInstance(t *testing.T) {
	t.Parallel()
	base := zktest.UniquePath(t)
	d := registry(t, base)
	port := 8080
	spec, err := discovery.ParseURISpec("{scheme}://{address}:{port}/api")
	require.NoError(t, err)
	reg, err := d.Register(ctxOf(t), discovery.Instance[json.RawMessage]{
		Name: "web", ID: "web-1", Address: "web.example", Port: &port,
		Payload: json.RawMessage(`{"zone":"a","weight":3}`), URISpec: spec,
		RegistrationTimeUTC: time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC).UnixMilli(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = reg.Close(ctxOf(t)) })
	_, err = d.Register(ctxOf(t), discovery.Instance[json.RawMessage]{Name: "db", ID: "db-1", Address: "db.example"})
	require.NoError(t, err)

	code, stdout, stderr := runZkr(t, "services", "--servers", zktest.Servers(t), "--base", base)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 3, stdout)
	assert.Equal(t, []string{"NAME", "ID", "ADDRESS", "PORT", "SSLPORT", "TYPE", "ENABLED", "REGISTERED", "URI"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"db", "db-1", "db.example", "-", "-", "DYNAMIC", "true"}, strings.Fields(lines[1])[:7], "sorted by name")
	assert.Equal(t, []string{"web", "web-1", "web.example", "8080", "-", "DYNAMIC", "true", "2026-11-26T23:00:00Z",
		"http://web.example:8080/api"}, strings.Fields(lines[2]))

	code, stdout, stderr = runZkr(t, "services", "--servers", zktest.Servers(t), "--base", base, "web")
	require.Equal(t, 0, code, stderr)
	lines = strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 2, "NAME gives its instances only: %s", stdout)
	assert.Equal(t, "web", strings.Fields(lines[1])[0])

	code, stdout, stderr = runZkr(t, "services", "--servers", zktest.Servers(t), "--base", base, "--json", "web")
	require.Equal(t, 0, code, stderr)
	stored, _, err := client(t).Get(ctxOf(t), base+"/web/web-1")
	require.NoError(t, err)
	assert.Equal(t, string(stored)+"\n", stdout, "--json prints the instance as stored")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, map[string]any{"@class": "java.util.LinkedHashMap", "zone": "a", "weight": float64(3)}, doc["payload"])

	code, stdout, stderr = runZkr(t, "services", "--servers", zktest.Servers(t), "--base", base+"/none")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"NAME", "ID", "ADDRESS", "PORT", "SSLPORT", "TYPE", "ENABLED", "REGISTERED", "URI"},
		strings.Fields(stdout), "a registry that does not exist is the header alone")
}

// Bad input is refused with status 2 before zkr waits for a session: the
// server here is never reachable, and --connect-timeout is long.
func TestServices_BadInputFailsWithStatus2BeforeConnecting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"services", "a", "b"}, "services takes 0 to 1 argument(s), got 2"},
		{[]string{"services", "--base", "/a//b"}, "--base"},
		{[]string{"services", "a/b"}, "a/b"},
		{[]string{"services", "a", "--", "true"}, "services runs no COMMAND"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}

// zkr services NAME that finds no instance fails, so that a script can
// tell; without NAME an empty registry is no failure.
func TestServices_NameWithNoInstanceExitsWithStatus1(t *testing.T) {
	t.Parallel()
	base := zktest.UniquePath(t)
	_, err := registry(t, base).Register(ctxOf(t), discovery.Instance[json.RawMessage]{Name: "db", ID: "db-1", Address: "db.example"})
	require.NoError(t, err)
	code, stdout, stderr := runZkr(t, "services", "--servers", zktest.Servers(t), "--base", base, "web")
	assert.Equal(t, exitError, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, `zkr: services: not found: no instance of "web" under `+base+"\n", stderr)
}
