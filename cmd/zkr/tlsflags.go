package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"os"
)

// tlsFlags are the flags that make zkr speak TLS to the servers' secure
// client port (framework.WithTLS).
type tlsFlags struct {
	on         bool
	ca         string
	cert, key  string
	serverName string
}

// registerTLSFlags registers the TLS flags on fs.
func registerTLSFlags(fs *flag.FlagSet) *tlsFlags {
	t := &tlsFlags{}
	fs.BoolVar(&t.on, "tls", false, "speak TLS to the servers' secure client port, trusting the system's CAs (implied by the other --tls flags)")
	fs.StringVar(&t.ca, "tls-ca", "", "trust the CAs of this PEM `file` instead of the system's")
	fs.StringVar(&t.cert, "tls-cert", "", "present the client certificate of this PEM `file` (with --tls-key), for ssl.clientAuth and x509 ACLs")
	fs.StringVar(&t.key, "tls-key", "", "the PEM `file` of --tls-cert's private key")
	fs.StringVar(&t.serverName, "tls-server-name", "", "check the servers' certificates against this `name` (default: the host of each server in --servers)")
	return t
}

// config returns the TLS configuration the flags ask for, or nil when
// they ask for none (nil flags: none registered). Files that cannot be
// read or are not PEM of the right kind are usage errors, found before any
// connection.
func (t *tlsFlags) config() (*tls.Config, error) {
	if t == nil || !t.on && t.ca == "" && t.cert == "" && t.key == "" && t.serverName == "" {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: t.serverName, MinVersion: tls.VersionTLS12}
	if t.ca != "" {
		pem, err := os.ReadFile(t.ca)
		if err != nil {
			return nil, usagef("--tls-ca: %v", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, usagef("--tls-ca: no PEM certificate in %s", t.ca)
		}
	}
	if (t.cert == "") != (t.key == "") {
		return nil, usagef("--tls-cert and --tls-key go together")
	}
	if t.cert != "" {
		pair, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, usagef("--tls-cert, --tls-key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
