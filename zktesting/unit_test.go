package zktesting

import (
	"archive/zip"
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerConfig_RenderStandaloneAndMember(t *testing.T) {
	cfg := serverConfig{tick: 200 * time.Millisecond, dataDir: "/d", clientPort: 2181, maxSession: time.Minute, syncLimit: 15}
	standalone := cfg.render()
	for _, line := range []string{
		"tickTime=200", "initLimit=50", "syncLimit=15", "dataDir=/d", "clientPort=2181",
		"clientPortAddress=127.0.0.1", "minSessionTimeout=400", "maxSessionTimeout=60000",
		"maxClientCnxns=0", "admin.enableServer=false", "4lw.commands.whitelist=*",
		"extendedTypesEnabled=true", "forceSync=no",
	} {
		assert.Contains(t, standalone, line+"\n")
	}
	assert.NotContains(t, standalone, "server.")

	cfg.peers = []peer{{id: 1, quorum: 10, election: 11}, {id: 2, quorum: 20, election: 21}}
	member := cfg.render()
	assert.Contains(t, member, "server.1=127.0.0.1:10:11\nserver.2=127.0.0.1:20:21\n")
}

func TestClasspath_DebianJarGetsSlf4jSimple(t *testing.T) {
	if _, err := os.Stat(debianJar); err != nil {
		t.Skip("Debian's zookeeper package is not installed") // CI installs it; the server tests fail without it
	}
	cp, err := classpath(debianJar)
	require.NoError(t, err)
	assert.Equal(t, []string{debianJar, filepath.Join(debianJavaDir, "slf4j-simple.jar")}, cp)
}

func TestClasspath_JarWithoutManifestGetsItsSiblingsButLogback(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "zookeeper-3.8.4.jar")
	writeJar(t, jar, "")
	writeJar(t, filepath.Join(dir, "netty-handler.jar"), "")
	writeJar(t, filepath.Join(dir, "logback-classic.jar"), "")
	writeJar(t, filepath.Join(dir, "slf4j-simple.jar"), "")

	cp, err := classpath(jar)
	require.NoError(t, err)
	assert.Equal(t, jar, cp[0])
	assert.Contains(t, cp, filepath.Join(dir, "netty-handler.jar"))
	assert.NotContains(t, cp, filepath.Join(dir, "logback-classic.jar"))
	assert.Equal(t, filepath.Join(dir, "slf4j-simple.jar"), cp[len(cp)-1])
}

func TestManifestHasClassPath(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "a.jar"), filepath.Join(dir, "b.jar")
	writeJar(t, with, "Manifest-Version: 1.0\nClass-Path: /x.jar\n")
	writeJar(t, without, "Manifest-Version: 1.0\n")
	got, err := manifestHasClassPath(with)
	require.NoError(t, err)
	assert.True(t, got)
	got, err = manifestHasClassPath(without)
	require.NoError(t, err)
	assert.False(t, got)
}

// writeJar writes a jar whose manifest is manifest (none if empty).
func writeJar(t *testing.T, path, manifest string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w := zip.NewWriter(f)
	if manifest != "" {
		mf, err := w.Create("META-INF/MANIFEST.MF")
		require.NoError(t, err)
		_, err = mf.Write([]byte(manifest))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
}

func TestMntr_ParsesPairsAndRejectsNotServing(t *testing.T) {
	addr := fakeServer(t, "zk_version\t3.8.0\nzk_packets_received\t42\n")
	stats, err := Mntr(context.Background(), addr)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"zk_version": "3.8.0", "zk_packets_received": "42"}, stats)

	addr = fakeServer(t, "This ZooKeeper instance is not currently serving requests\n")
	_, err = Mntr(context.Background(), addr)
	assert.ErrorContains(t, err, "not currently serving")
}

func TestLogTail_KeepsLastLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(path, []byte("1\n2\n3\n4\n"), 0o644))
	assert.Equal(t, "3\n4", logTail(path, 2))
	assert.Contains(t, logTail(filepath.Join(t.TempDir(), "none"), 2), "no log")
}

// fakeServer answers one four-letter word with answer, once.
func fakeServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	// Ends after one connection, or when the listener closes.
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		word := make([]byte, 4)
		if _, err := conn.Read(word); err == nil {
			_, _ = conn.Write([]byte(answer))
		}
	}()
	return ln.Addr().String()
}
