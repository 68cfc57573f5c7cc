package zktesting

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// TLS is the certificate authority of a server (or an ensemble) started
// WithTLS: it signed the server's certificate, and the server trusts the
// client certificates it signs. Its methods are safe for concurrent use.
type TLS struct {
	ca  *x509.Certificate
	key *ecdsa.PrivateKey
}

// tlsValidity is how long the certificates zktesting makes are valid,
// from an hour before they are made (a clock a little behind).
const tlsValidity = 7 * 24 * time.Hour

// NewTLS makes a new certificate authority: WithTLS makes one for the
// server, and a test makes another for a client (or a client's CA pool)
// that the server must not trust.
func NewTLS() *TLS {
	key := newKey()
	tmpl := certTemplate(pkix.Name{CommonName: "zktesting CA", Organization: []string{"zktesting"}})
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(fmt.Sprintf("zktesting: self-sign a CA: %v", err)) // only a template of ours can cause it
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		panic(fmt.Sprintf("zktesting: parse our CA: %v", err))
	}
	return &TLS{ca: ca, key: key}
}

// CA returns the certificate of the authority: a client's RootCAs.
func (t *TLS) CA() *x509.Certificate { return t.ca }

// CAPool returns a pool holding only the authority's certificate.
func (t *TLS) CAPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(t.ca)
	return pool
}

// ClientConfig returns a client's TLS configuration: the authority as its
// only root, and a new client certificate for the subject CN=name (no
// client certificate when name is ""). The server's x509 authentication
// provider takes the certificate's subject as the client's identity, so
// an ACL of scheme "x509" and id "CN=name" (see X509Identity) lets that
// client in. ServerName is left empty: framework.WithTLS sets it from the
// connect string, and the server's certificate names 127.0.0.1 and
// localhost.
func (t *TLS) ClientConfig(name string) *tls.Config {
	cfg := &tls.Config{RootCAs: t.CAPool(), MinVersion: tls.VersionTLS12}
	if name != "" {
		cfg.Certificates = []tls.Certificate{t.ClientCertificate(name)}
	}
	return cfg
}

// ClientCertificate returns a new client certificate for the subject
// CN=name, signed by the authority.
func (t *TLS) ClientCertificate(name string) tls.Certificate {
	tmpl := certTemplate(pkix.Name{CommonName: name})
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return t.sign(tmpl)
}

// X509Identity returns the identity ZooKeeper's x509 authentication
// provider gives a client certificate of ClientCertificate(name): its
// subject in RFC 2253 form, "CN=name", compared as an exact string.
func X509Identity(name string) string {
	return pkix.Name{CommonName: name}.String()
}

// serverCertificate returns a new server certificate for 127.0.0.1 and
// localhost.
func (t *TLS) serverCertificate() tls.Certificate {
	tmpl := certTemplate(pkix.Name{CommonName: "localhost", Organization: []string{"zktesting"}})
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	tmpl.DNSNames = []string{"localhost"}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	return t.sign(tmpl)
}

// sign makes a certificate of tmpl for a new key, signed by the authority.
func (t *TLS) sign(tmpl *x509.Certificate) tls.Certificate {
	key := newKey()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, t.ca, &key.PublicKey, t.key)
	if err != nil {
		panic(fmt.Sprintf("zktesting: sign a certificate: %v", err)) // only a template of ours can cause it
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		panic(fmt.Sprintf("zktesting: parse our certificate: %v", err))
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

// newKey returns a new P-256 key: quick to make, and every JVM speaks it.
func newKey() *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("zktesting: generate a key: %v", err)) // crypto/rand does not fail
	}
	return key
}

// certTemplate returns a template for subject with a random serial.
func certTemplate(subject pkix.Name) *x509.Certificate {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(fmt.Sprintf("zktesting: a serial number: %v", err))
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(tlsValidity),
	}
}

// pemOf returns cert's chain and key as PEM: ZooKeeper's PEM key store.
func pemOf(cert tls.Certificate) []byte {
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		panic(fmt.Sprintf("zktesting: marshal our key: %v", err))
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	for _, der := range cert.Certificate {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}
