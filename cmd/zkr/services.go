package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// defaultServicesBase is where curator-x-discovery users most often keep
// their registry, and where zkr looks unless --base says.
const defaultServicesBase = "/services"

// servicesHelp is the longer help of `zkr services`.
const servicesHelp = `Reads the service registry under --base (recipes/discovery, Curator's
curator-x-discovery: the instances of a service at <base>/<name>/<id>, each
node's data a ServiceInstance in Curator's JSON) and prints its instances,
those of every service or, with NAME, those of NAME only, one line each,
sorted by name and id:

  NAME  ID    ADDRESS   PORT  SSLPORT  TYPE     ENABLED  REGISTERED            URI
  web   7f3…  10.0.0.5  8080  -        DYNAMIC  true     2026-11-26T23:00:00Z  http://10.0.0.5:8080

A port that is not set is "-"; REGISTERED is the registration time in
UTC; URI is the instance's uri spec built as Curator's buildUriSpec()
builds it ("-" without a uri spec). A node that is not an instance is
left out, as Curator's readers leave it out. A registry that does not
exist is empty: the header alone.

--json prints each instance's JSON as it is stored, one object per line
(the payload as its writer wrote it, "@class" and all).`

// setupServices is `zkr services [NAME]`.
func setupServices(fs *flag.FlagSet, conn *connFlags) runFunc {
	base := fs.String("base", defaultServicesBase, "the registry's base `path` (Curator's ServiceDiscoveryBuilder.basePath)")
	asJSON := fs.Bool("json", false, "print each instance's JSON as stored, one object per line")
	return func(ctx context.Context, e *env, args, _ []string) error {
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		if err := checkServicePath(client, *base, name, ""); err != nil {
			return err
		}
		d, err := discovery.New[json.RawMessage](client, *base)
		if err != nil {
			return err
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		if err := conn.waitConnected(ctx, e, client, -1); err != nil {
			return interrupted(ctx, err)
		}
		found, err := listInstances(ctx, client, d, *base, name)
		if err != nil {
			return interrupted(ctx, err)
		}
		if name != "" && len(found) == 0 {
			return fmt.Errorf("services: %w: no instance of %q under %s", errNoMatch, name, *base)
		}
		if *asJSON {
			for _, s := range found {
				fmt.Fprintf(e.stdout, "%s\n", s.raw)
			}
			return nil
		}
		return printServices(e.stdout, found)
	}
}

// listInstances reads the instances of name under base, or of every
// service with name "", in the order of their names.
func listInstances(ctx context.Context, client *framework.Client, d *discovery.Discovery[json.RawMessage], base, name string) ([]storedInstance, error) {
	names := []string{name}
	if name == "" {
		var err error
		if names, err = d.Names(ctx); err != nil {
			return nil, err
		}
		slices.Sort(names)
	}
	var found []storedInstance
	for _, n := range names {
		insts, err := readInstances(ctx, client, base, n)
		if err != nil {
			return nil, err
		}
		found = append(found, insts...)
	}
	return found, nil
}

// storedInstance is an instance as read, with its node's data.
type storedInstance struct {
	inst discovery.Instance[json.RawMessage]
	raw  []byte // the node's data, compact
}

// readInstances reads the instances of service name under base in one
// multi-read, sorted by id; a node that is not an instance is left out, as
// discovery's Instances leaves it out. zkr keeps each node's data, so that
// --json prints it as stored.
func readInstances(ctx context.Context, client *framework.Client, base, name string) ([]storedInstance, error) {
	codec, err := discovery.NewCodec[json.RawMessage]()
	if err != nil {
		return nil, err
	}
	p := childPath(base, name)
	ids, _, err := client.Children(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	ops := make([]framework.ReadOp, len(ids))
	for i, id := range ids {
		ops[i] = framework.GetOp(childPath(p, id))
	}
	results, err := client.MultiRead(ctx, ops...)
	if err != nil {
		return nil, err
	}
	var out []storedInstance
	for _, r := range results {
		if r.Err != nil {
			continue // gone meanwhile
		}
		inst, err := codec.Unmarshal(r.Data)
		if err != nil {
			continue
		}
		raw := r.Data
		var compact bytes.Buffer
		if err := json.Compact(&compact, r.Data); err == nil {
			raw = compact.Bytes()
		}
		out = append(out, storedInstance{inst: *inst, raw: raw})
	}
	return out, nil
}

// printServices writes the instances as a table.
func printServices(w io.Writer, found []storedInstance) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tADDRESS\tPORT\tSSLPORT\tTYPE\tENABLED\tREGISTERED\tURI")
	for _, s := range found {
		i := s.inst
		uri := i.BuildURI(nil)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%t\t%s\t%s\n",
			orDash(i.Name), orDash(i.ID), orDash(i.Address), portText(i.Port), portText(i.SSLPort),
			orDash(string(i.ServiceType)), !i.Disabled,
			time.UnixMilli(i.RegistrationTimeUTC).UTC().Format(time.RFC3339), orDash(uri))
	}
	return tw.Flush()
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// portText is a port, or "-" for none.
func portText(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// childPath is the path of child under parent.
func childPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// checkServicePath checks, before any wait, that base is a path and that
// name and id, when given, are node names under it, so that bad input is
// a usage error and not a failure after connecting.
func checkServicePath(client *framework.Client, base, name, id string) error {
	if _, err := client.ServerPath(base); err != nil {
		return fmt.Errorf("--base: %w", err)
	}
	p := base
	for _, n := range []struct{ what, name string }{{"service name", name}, {"--id", id}} {
		if n.name == "" {
			continue
		}
		if strings.Contains(n.name, "/") {
			return usagef("%s %q: a node name has no /", n.what, n.name)
		}
		p = childPath(p, n.name)
		if _, err := client.ServerPath(p); err != nil {
			return fmt.Errorf("%s %q: %w", n.what, n.name, err)
		}
	}
	return nil
}
