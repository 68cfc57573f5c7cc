package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// proc is one implementation process (or the cut proxy) and its line
// protocol: control lines to stdin, answers on stdout, stderr to the log.
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // stdout lines; closed at EOF
	exit  chan error  // the process's exit status, once
	final map[string]any
	// reconnectedNS: the last "RECONNECTED <ns>" line seen by expect.
	reconnectedNS int64
}

func startProc(name string, logw io.Writer, argv ...string) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = logw
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "## %s: %s\n", name, strings.Join(argv, " "))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, stdin: in, lines: make(chan string, 1024), exit: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.exit <- cmd.Wait()
	}()
	return p, nil
}

// startImpl runs DIR/run SCENARIO ARGS... for an implementation folder.
func startImpl(dir, scenario string, logw io.Writer, args ...string) (*proc, error) {
	return startProc(filepath.Base(dir), logw, append([]string{filepath.Join(dir, "run"), scenario}, args...)...)
}

// expect waits for a stdout line whose first word is word and returns its
// other words. A JSON line ({...}) on the way is kept as the final result:
// an implementation that cannot run a scenario prints {"na": true} at once.
func (p *proc) expect(word string, timeout time.Duration) ([]string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("%s: exited before %s", p.name, word)
			}
			if strings.HasPrefix(l, "{") {
				p.keepFinal(l)
				if p.final["na"] == true {
					return nil, errNA
				}
				continue
			}
			f := strings.Fields(l)
			if len(f) == 2 && f[0] == "RECONNECTED" {
				p.reconnectedNS, _ = strconv.ParseInt(f[1], 10, 64)
			}
			if len(f) > 0 && f[0] == word {
				return f[1:], nil
			}
			if len(f) > 0 && f[0] == "ERROR" {
				return nil, fmt.Errorf("%s: %s", p.name, l)
			}
		case <-t.C:
			return nil, fmt.Errorf("%s: no %s within %v", p.name, word, timeout)
		}
	}
}

var errNA = fmt.Errorf("not supported")

func (p *proc) keepFinal(l string) {
	var m map[string]any
	if err := json.Unmarshal([]byte(l), &m); err == nil {
		p.final = m
	}
}

func (p *proc) send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// finish sends stop and waits for the final JSON line and the exit; after
// timeout the process is killed.
func (p *proc) finish(timeout time.Duration) (map[string]any, error) {
	_ = p.send("stop")
	t := time.NewTimer(timeout)
	defer t.Stop()
	for p.final == nil {
		select {
		case l, ok := <-p.lines:
			if !ok {
				goto wait
			}
			if strings.HasPrefix(l, "{") {
				p.keepFinal(l)
			}
		case <-t.C:
			p.kill()
			return nil, fmt.Errorf("%s: no result within %v", p.name, timeout)
		}
	}
wait:
	_ = p.stdin.Close()
	select {
	case <-p.exit:
	case <-t.C:
		p.kill()
	}
	if p.final == nil {
		return nil, fmt.Errorf("%s: exited without a result line", p.name)
	}
	return p.final, nil
}

func (p *proc) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	_ = p.stdin.Close()
	go func() {
		for range p.lines {
		}
	}()
}

var _ = os.Stderr
