package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// registerHelp is the longer help of `zkr register`.
const registerHelp = `Registers an instance of the service NAME in the registry under --base
(recipes/discovery, Curator's curator-x-discovery ServiceDiscovery), runs
COMMAND while it is registered, unregisters it when COMMAND exits, and
exits with COMMAND's status. Curator's ServiceDiscovery, ServiceCache and
ServiceProvider, and zkr services, see the instance while COMMAND runs.

The instance is dynamic, Curator's default: an ephemeral node at
<base>/<NAME>/<id>, registered again in the next session if its session
is lost, gone within --session-timeout if zkr is killed with SIGKILL.
--id defaults to a random UUID, as Curator's builder does; the
registration time is now.

--payload takes a JSON object, written as Curator writes a Map payload:
with "@class":"java.util.LinkedHashMap" (a Curator reader with an Object
or Map payload class reads it). --uri-spec takes Curator's UriSpec
template, such as "{scheme}://{address}:{port}/api".

Without COMMAND, zkr prints
  ZKR_SERVICE_NODE=<the instance's node>
  ZKR_SERVICE_ID=<its id>
on stdout once registered, stays registered until SIGINT, SIGTERM or
SIGHUP, then unregisters and exits 0.

COMMAND runs as under zkr lock: in a process group of its own, zkr's
SIGINT, SIGTERM and SIGHUP passed on to it, what it leaves running
stopped (SIGTERM, SIGKILL after --grace) before the instance is
unregistered; its environment has ZKR_SERVICE_NODE and ZKR_SERVICE_ID.
A signal before the instance is registered exits 128+N, as any wait.`

// registerFlags are the flags of `zkr register`.
type registerFlags struct {
	base    string
	address string
	port    portFlag
	sslPort portFlag
	id      string
	payload string
	uriSpec string
	grace   time.Duration
}

// setupRegister is `zkr register NAME --address A --port P -- COMMAND`.
func setupRegister(fs *flag.FlagSet, conn *connFlags) runFunc {
	var f registerFlags
	f.define(fs)
	return func(ctx context.Context, e *env, args, child []string) error {
		inst, err := f.instance(args[0])
		if err != nil {
			return err
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		if err := checkServicePath(client, f.base, inst.Name, inst.ID); err != nil {
			return err
		}
		d, err := discovery.New[json.RawMessage](client, f.base)
		if err != nil {
			return err
		}
		what := "register " + childPath(f.base, inst.Name)
		a := acquireFlags{childFlags: childFlags{onLost: "ignore", grace: f.grace}}
		reg, err := waitFor(ctx, e, conn, client, a, what,
			func(ctx context.Context, _ time.Duration) (*discovery.Registration[json.RawMessage], error) {
				return d.Register(ctx, inst)
			},
			func(ctx context.Context, r *discovery.Registration[json.RawMessage]) error { return r.Close(ctx) })
		if err != nil {
			return err
		}
		return holdRegistration(e, reg, what, child, a.childFlags)
	}
}

// define defines the flags of `zkr register` on fs.
func (f *registerFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.base, "base", defaultServicesBase, "the registry's base `path` (Curator's ServiceDiscoveryBuilder.basePath)")
	fs.StringVar(&f.address, "address", "", "the `host` name or IP address the instance listens on (needed)")
	fs.Var(&f.port, "port", "the instance's `port`, 0 to 65535 (needed)")
	fs.Var(&f.sslPort, "ssl-port", "the instance's TLS `port`, 0 to 65535 (makes a uri spec's {scheme} https)")
	fs.StringVar(&f.id, "id", "", "the instance's `id` (default: a random UUID)")
	fs.StringVar(&f.payload, "payload", "", "the instance's payload, a JSON `object`")
	fs.StringVar(&f.uriSpec, "uri-spec", "", "the instance's uri `spec`, Curator's UriSpec (\"{scheme}://{address}:{port}\")")
	fs.DurationVar(&f.grace, "grace", 10*time.Second, "after SIGTERM, wait this `duration` before SIGKILL")
}

// holdRegistration keeps reg while child runs (or, with no child, until
// a signal, printing its environment), and closes it after.
func holdRegistration(e *env, reg *discovery.Registration[json.RawMessage], what string, child []string, cf childFlags) error {
	h := held{
		what: what,
		err:  func() error { return nil }, // a dynamic instance is registered again, never lost
		env: []string{
			"ZKR_SERVICE_NODE=" + reg.Node(),
			"ZKR_SERVICE_ID=" + reg.Instance().ID,
		},
		release: reg.Close,
	}
	if child == nil {
		for _, v := range h.env {
			fmt.Fprintln(e.stdout, v)
		}
		<-e.signals
		releaseHeld(e, h)
		return nil
	}
	return runHolding(e, h, child, cf)
}

// instance checks the flags and returns the instance they describe.
func (f *registerFlags) instance(name string) (discovery.Instance[json.RawMessage], error) {
	inst := discovery.Instance[json.RawMessage]{Name: name, ID: f.id, Address: f.address, Port: f.port.p, SSLPort: f.sslPort.p}
	if name == "" {
		return inst, usagef("register: the service NAME must not be empty")
	}
	if f.address == "" {
		return inst, usagef("register needs --address")
	}
	if f.port.p == nil {
		return inst, usagef("register needs --port")
	}
	if f.grace < 0 {
		return inst, usagef("--grace must not be negative")
	}
	if f.payload != "" {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(f.payload)); err != nil {
			return inst, usagef("--payload takes a JSON object: %v", err)
		}
		if b.Bytes()[0] != '{' {
			return inst, usagef("--payload takes a JSON object, not %s", b.Bytes())
		}
		inst.Payload = b.Bytes()
	}
	if f.uriSpec != "" {
		spec, err := discovery.ParseURISpec(f.uriSpec)
		if err != nil {
			return inst, usagef("--uri-spec: %v", err)
		}
		inst.URISpec = spec
	}
	return inst, nil
}

// portFlag is --port or --ssl-port: a TCP port; p is nil when not given.
type portFlag struct{ p *int }

// Set parses a port from 0 to 65535.
func (f *portFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("takes a port from 0 to 65535, not %q", s)
	}
	f.p = &n
	return nil
}

// String says the port, "" when not given (no default in help).
func (f *portFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return strconv.Itoa(*f.p)
}
