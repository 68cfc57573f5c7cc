package framework

import (
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// serverPath validates a client path and prefixes the namespace.
func (c *Client) serverPath(path string) (string, error) {
	if err := zkpath.Validate(path); err != nil {
		return "", err
	}
	if err := checkSize(path, nil); err != nil {
		return "", err
	}
	return c.withNamespace(path), nil
}

func (c *Client) withNamespace(path string) string {
	switch {
	case c.cfg.namespace == "":
		return path
	case path == "/":
		return c.cfg.namespace
	}
	return c.cfg.namespace + path
}

// clientPath strips the namespace from a server path.
func (c *Client) clientPath(serverPath string) string {
	ns := c.cfg.namespace
	if ns == "" {
		return serverPath
	}
	if serverPath == ns {
		return "/"
	}
	return strings.TrimPrefix(serverPath, ns)
}

// ServerPath returns the server's path for a client path: the namespace
// prepended. Watch events carry server paths.
func (c *Client) ServerPath(path string) (string, error) {
	p, err := c.serverPath(path)
	if err != nil {
		return "", fmt.Errorf("framework: %w", err)
	}
	return p, nil
}

// chrootNamespace returns the namespace of a client given the chroot of
// its connect string and the namespace of WithNamespace, either or both
// "": the one given, or both if they agree.
func chrootNamespace(chroot, ns string) (string, error) {
	switch {
	case chroot == "":
		return ns, nil
	case ns == "", ns == chroot:
		return chroot, nil
	}
	return "", fmt.Errorf("%w: chroot %s, namespace %s; give the namespace once", ErrNamespaceConflict, chroot, ns)
}
