package zksasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// The names ZooKeeper's Java client and server give DIGEST-MD5: the
// service "zookeeper" on the host "zk-sasl-md5", whatever the server's
// address. The server checks the digest-uri against them.
const (
	service    = "zookeeper"
	serverName = "zk-sasl-md5"
)

// errMechanism is a challenge or a server answer that DIGEST-MD5 (RFC
// 2831) does not allow, or a server that does not prove it knows the
// password: a failure for good.
var errMechanism = fmt.Errorf("%w: DIGEST-MD5", ErrAuthFailed)

// digestClient is one DIGEST-MD5 authentication, client side, with qop
// "auth" (no integrity or privacy layer): the challenge answered, then
// the server's rspauth checked.
type digestClient struct {
	user, password string
	// what the response committed to, for checking rspauth
	ha1, nonce, cnonce, uri string
	answered, complete      bool
}

// nonceCount is the count of the one response of an authentication.
const nonceCount = "00000001"

// step answers the server's token: the challenge with the response, then
// rspauth with nothing, completing the authentication.
func (d *digestClient) step(token []byte) ([]byte, error) {
	if d.complete {
		return nil, fmt.Errorf("%w: a server token after completion", errMechanism)
	}
	fields, err := parseDirectives(string(token))
	if err != nil {
		return nil, err
	}
	if !d.answered {
		d.answered = true
		return d.respond(fields)
	}
	want := d.digest(":" + d.uri)
	if subtle.ConstantTimeCompare([]byte(fields["rspauth"]), []byte(want)) != 1 {
		return nil, fmt.Errorf("%w: the server's rspauth does not match: it does not know the password", errMechanism)
	}
	d.complete = true
	return nil, nil
}

// respond computes the response to a challenge.
func (d *digestClient) respond(ch map[string]string) ([]byte, error) {
	if ch["algorithm"] != "md5-sess" || ch["nonce"] == "" {
		return nil, fmt.Errorf("%w: a challenge without md5-sess or nonce: %q", errMechanism, ch)
	}
	if qop, ok := ch["qop"]; ok && !slices.Contains(strings.Split(qop, ","), "auth") {
		return nil, fmt.Errorf("%w: the server offers qop %q, not auth", errMechanism, qop)
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	realm := ch["realm"]
	d.commit(realm, ch["nonce"], base64.RawStdEncoding.EncodeToString(raw[:]), service+"/"+serverName)
	parts := []string{
		"username=" + quote(d.user), "realm=" + quote(realm), "nonce=" + quote(d.nonce),
		"cnonce=" + quote(d.cnonce), "nc=" + nonceCount, "qop=auth", "digest-uri=" + quote(d.uri),
		"response=" + d.digest("AUTHENTICATE:"+d.uri),
	}
	if ch["charset"] == "utf-8" {
		parts = append(parts, "charset=utf-8")
	}
	return []byte(strings.Join(parts, ",")), nil
}

// commit fixes what the response and rspauth are computed from.
func (d *digestClient) commit(realm, nonce, cnonce, uri string) {
	d.nonce, d.cnonce, d.uri = nonce, cnonce, uri
	secret := md5.Sum([]byte(d.user + ":" + realm + ":" + d.password))
	ha1 := md5.Sum(append(secret[:], ":"+d.nonce+":"+d.cnonce...))
	d.ha1 = hex.EncodeToString(ha1[:])
}

// digest is RFC 2831's response value for A2 = a2, qop auth.
func (d *digestClient) digest(a2 string) string {
	ha2 := md5.Sum([]byte(a2))
	kd := md5.Sum([]byte(d.ha1 + ":" + d.nonce + ":" + nonceCount + ":" + d.cnonce + ":auth:" + hex.EncodeToString(ha2[:])))
	return hex.EncodeToString(kd[:])
}

// quote is a quoted-string of RFC 2831.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// parseDirectives parses a challenge or rspauth: name=value pairs,
// separated by commas, values as tokens or quoted strings.
func parseDirectives(s string) (map[string]string, error) {
	out := map[string]string{}
	for s = strings.TrimLeft(s, " \t,"); s != ""; s = strings.TrimLeft(s, " \t,") {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%w: a directive without a value: %q", errMechanism, s)
		}
		value, rest, err := directiveValue(strings.TrimLeft(rest, " \t"))
		if err != nil {
			return nil, err
		}
		out[strings.ToLower(strings.TrimSpace(name))] = value
		s = rest
	}
	return out, nil
}

// directiveValue reads one value at the head of s and returns the rest.
func directiveValue(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		v, r, _ := strings.Cut(s, ",")
		return strings.TrimSpace(v), r, nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", fmt.Errorf("%w: an unterminated quoted value", errMechanism)
}
