package zktest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ErrCuratorCommand is wrapped by the error of every command the Curator peer answered with err.
var ErrCuratorCommand = errors.New("zktest: curator command failed")

// curatorJars are the Debian jars the peer runs on: Curator 5.4.0, ZooKeeper 3.8.0, and
// slf4j-simple so that Curator's warnings reach the peer's stderr.
var curatorJars = []string{
	"curator-recipes", "curator-framework", "curator-client", "zookeeper", "zookeeper-jute",
	"guava", "slf4j-api", "slf4j-simple",
}

const (
	curatorJarDir       = "/usr/share/java"
	curatorSessionMs    = "10000"
	curatorReadyTimeout = 60 * time.Second
	curatorStopGrace    = 5 * time.Second
)

// The peer is compiled once per test binary; curatorOnce guards the other two.
var (
	curatorOnce       sync.Once
	curatorClassDir   string
	curatorCompileErr error
)

// Curator is a Curator 5.x peer process on the same ZooKeeper. It runs
// testdata/curatorpeer/CuratorPeer.java, whose commands act on named handles: each handle
// has its own thread in the peer, so a blocked acquire on one handle does not hold up the
// others. A Curator is safe for concurrent use.
type Curator struct {
	t      testing.TB
	cmd    *exec.Cmd
	stderr *curatorBuffer
	ready  chan struct{} // closed when the peer prints ready
	exited chan struct{} // closed when stdout has closed and the process is reaped
	// waitErr is written before exited closes.
	waitErr error

	writeMu sync.Mutex // serializes lines written to stdin
	stdin   io.WriteCloser

	mu      sync.Mutex // guards nextID and pending
	nextID  int
	pending map[int]chan curatorReply
}

type curatorReply struct {
	ok      bool
	payload string
}

// StartCurator compiles the peer (once per test binary), starts it connected to servers
// with a 10 s session, and waits until it is connected. The peer is closed, and killed
// 5 s later if still running, when the test ends. Missing java, javac or Curator jars
// fail the test: `make deps` installs them.
func StartCurator(t testing.TB, servers string) *Curator {
	t.Helper()
	cp, err := curatorClasspath()
	if err != nil {
		t.Fatal(err)
	}
	curatorOnce.Do(func() { curatorClassDir, curatorCompileErr = curatorCompile(cp) })
	if curatorCompileErr != nil {
		t.Fatal(curatorCompileErr)
	}
	c := &Curator{
		t: t, stderr: &curatorBuffer{}, pending: make(map[int]chan curatorReply),
		ready: make(chan struct{}), exited: make(chan struct{}),
	}
	c.cmd = exec.Command("java", "-Xmx256m", "-XX:TieredStopAtLevel=1",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", curatorClassDir+string(os.PathListSeparator)+cp, "CuratorPeer", servers, curatorSessionMs)
	c.cmd.Stderr = c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("zktest: start curator peer: %v", err)
	}
	go c.read(stdout)
	t.Cleanup(c.stop)
	select {
	case <-c.ready:
		return c
	case <-c.exited:
		t.Fatalf("zktest: curator peer exited before ready (%v); its stderr follows", c.waitErr)
	case <-time.After(curatorReadyTimeout):
		t.Fatalf("zktest: curator peer not ready after %v on %s; its stderr follows", curatorReadyTimeout, servers)
	}
	return nil
}

// Do sends "verb args..." to the peer and waits for its answer, returning the payload of an
// ok answer; an err answer gives an error wrapping ErrCuratorCommand. Arguments must not
// contain whitespace. When ctx ends first Do returns ctx.Err(), but the peer still carries
// out the command (a late acquire keeps its lock): prefer the peer-side timeouts.
func (c *Curator) Do(ctx context.Context, verb string, args ...string) (string, error) {
	words := append([]string{verb}, args...)
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\r\n") {
			return "", fmt.Errorf("zktest: curator %s: argument %q is empty or has whitespace", verb, w)
		}
	}
	id, ch := c.register()
	c.writeMu.Lock()
	_, err := io.WriteString(c.stdin, strconv.Itoa(id)+" "+strings.Join(words, " ")+"\n")
	c.writeMu.Unlock()
	if err != nil {
		c.forget(id)
		return "", fmt.Errorf("zktest: curator %s: %w", verb, err)
	}
	var stopped error
	select {
	case r := <-ch:
		return r.result(verb)
	case <-ctx.Done():
		c.forget(id)
		stopped = ctx.Err()
	case <-c.exited:
		stopped = fmt.Errorf("peer exited (%v)", c.waitErr)
	}
	select {
	case r := <-ch: // the answer came in while we stopped waiting: it still counts
		return r.result(verb)
	default:
		return "", fmt.Errorf("zktest: curator %s: %w", verb, stopped)
	}
}

func (r curatorReply) result(verb string) (string, error) {
	if !r.ok {
		return "", fmt.Errorf("%w: %s: %s", ErrCuratorCommand, verb, r.payload)
	}
	return r.payload, nil
}

func (c *Curator) register() (int, chan curatorReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	ch := make(chan curatorReply, 1)
	c.pending[c.nextID] = ch
	return c.nextID, ch
}

func (c *Curator) forget(id int) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// read hands each stdout line to the caller waiting for its request id. It ends when the
// peer's stdout closes, after reaping the process.
func (c *Curator) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	readySeen := false
	for sc.Scan() {
		line := sc.Text()
		if line == "ready" && !readySeen {
			readySeen = true
			close(c.ready)
			continue
		}
		idText, rest, _ := strings.Cut(line, " ")
		status, payload, _ := strings.Cut(rest, " ")
		id, err := strconv.Atoi(idText)
		c.mu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if err != nil || !ok {
			fmt.Fprintf(c.stderr, "zktest: unmatched curator peer line %q\n", line)
			continue
		}
		ch <- curatorReply{ok: status == "ok", payload: payload}
	}
	_, _ = io.Copy(io.Discard, stdout) // after a scan error, keep the peer from blocking on a full pipe
	c.waitErr = c.cmd.Wait()
	close(c.exited)
}

// stop asks the peer to close (its session and ephemeral nodes go with it), kills it
// if it is still running after curatorStopGrace, and logs its stderr if the test failed.
func (c *Curator) stop() {
	id, _ := c.register()
	c.writeMu.Lock()
	_, _ = fmt.Fprintf(c.stdin, "%d close\n", id)
	_ = c.stdin.Close()
	c.writeMu.Unlock()
	select {
	case <-c.exited:
	case <-time.After(curatorStopGrace):
		c.t.Logf("zktest: curator peer pid %d still running %v after close; killing it", c.cmd.Process.Pid, curatorStopGrace)
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	if c.t.Failed() {
		c.t.Logf("zktest: curator peer stderr:\n%s", c.stderr)
	}
}

// curatorClasspath returns the peer's runtime classpath, or an error telling to run
// `make deps` when java, javac or a jar is missing.
func curatorClasspath() (string, error) {
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("zktest: the Curator peer needs %s (%w): run `make deps`", tool, err)
		}
	}
	jars := make([]string, 0, len(curatorJars))
	for _, name := range curatorJars {
		p := filepath.Join(curatorJarDir, name+".jar")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("zktest: the Curator peer needs %s (%w): run `make deps`", p, err)
		}
		jars = append(jars, p)
	}
	return strings.Join(jars, string(os.PathListSeparator)), nil
}

// curatorCompile compiles CuratorPeer.java into a temporary directory, which is then renamed
// to a directory named after a hash of the source, classpath and javac, so that later test
// binaries reuse the classes instead of leaving one directory behind per run.
func curatorCompile(cp string) (string, error) {
	src, err := curatorSource()
	if err != nil {
		return "", err
	}
	code, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("zktest: read curator peer source: %w", err)
	}
	javac, _ := exec.LookPath("javac")
	if real, err := filepath.EvalSymlinks(javac); err == nil {
		javac = real
	}
	sum := sha256.Sum256([]byte(string(code) + "\x00" + cp + "\x00" + javac))
	dir := filepath.Join(os.TempDir(), "zktest-curatorpeer-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "CuratorPeer.class")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp("", "zktest-curatorpeer-build-")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("javac", "-nowarn", "-Xlint:-path", "-cp", cp, "-d", tmp, src).CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("zktest: javac %s: %w\n%s", src, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "CuratorPeer.class")); statErr == nil {
			_ = os.RemoveAll(tmp) // another test binary compiled the same source first
			return dir, nil
		}
		return tmp, nil // the cache is unusable: run from our own directory
	}
	return dir, nil
}

// curatorSource finds testdata/curatorpeer/CuratorPeer.java under the module root, the
// first directory at or above the working directory that holds go.mod.
func curatorSource() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "curatorpeer", "CuratorPeer.java"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("zktest: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// curatorBuffer collects the peer's stderr; exec's copying goroutine writes while tests read.
type curatorBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *curatorBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *curatorBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// curatorJSON decodes a JSON array of strings from the peer.
func curatorJSON(payload string) ([]string, error) {
	var xs []string
	if err := json.Unmarshal([]byte(payload), &xs); err != nil {
		return nil, fmt.Errorf("zktest: curator reply %q: %w", payload, err)
	}
	return xs, nil
}
