package zktesting

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// WithSASLUsers makes the server authenticate clients by SASL DIGEST-MD5
// (framework.WithSASL) as the users given, name to password, and read
// ACLs of the sasl scheme (sasl:<user>): a JAAS Server section of
// DigestLoginModule, as a Kafka setup without Kerberos configures it. A
// client without SASL still connects; add
// WithJavaOpts("-Dzookeeper.enforce.auth.enabled=true",
// "-Dzookeeper.enforce.auth.schemes=sasl") for a server that lets it do
// nothing. A user name is letters, digits, '_', '-' and '.'; a password
// holds no newline. Start fails otherwise, with ErrInvalidArgument. The
// default: no SASL.
func WithSASLUsers(users map[string]string) Option {
	return func(o *options) { o.saslUsers = maps.Clone(users) }
}

// saslUserName is what a JAAS option's name may hold.
var saslUserName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// saslJavaOpts writes dir/jaas.conf for the users of WithSASLUsers and
// returns the JVM options that read it; none without users.
func saslJavaOpts(dir string, users map[string]string) ([]string, error) {
	if len(users) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required")
	for _, user := range slices.Sorted(maps.Keys(users)) {
		password := users[user]
		if !saslUserName.MatchString(user) || strings.ContainsAny(password, "\r\n") {
			return nil, fmt.Errorf("%w: SASL user %q, or its password, cannot be written in a JAAS file", ErrInvalidArgument, user)
		}
		quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(password)
		fmt.Fprintf(&b, "\n  user_%s=\"%s\"", user, quoted)
	}
	b.WriteString(";\n};\n")
	path := filepath.Join(dir, "jaas.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return nil, fmt.Errorf("zktesting: %w", err)
	}
	return []string{
		"-Djava.security.auth.login.config=" + path,
		"-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
	}, nil
}
