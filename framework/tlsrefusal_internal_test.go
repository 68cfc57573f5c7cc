package framework

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

// certificateRefusal is a handshake refused on the server's certificate.
var certificateRefusal = &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}

func TestTLSRefusal_GivesUpOnceEveryServerRefusedBeforeAnySuccess(t *testing.T) {
	var gaveUp []error
	r := newTLSRefusal(2, func(err error) { gaveUp = append(gaveUp, err) })

	err := r.failed("10.0.0.1:2281", "zk1", certificateRefusal)
	assert.ErrorIs(t, err, ErrTLSHandshake)
	assert.NoError(t, r.final(), "one server of two refused")
	r.failed("10.0.0.1:2281", "zk1", certificateRefusal)
	assert.NoError(t, r.final(), "the same server again counts once")

	r.failed("10.0.0.2:2281", "zk2", certificateRefusal)
	assert.ErrorIs(t, r.final(), ErrTLSHandshake, "both refused")
	r.failed("10.0.0.1:2281", "zk1", certificateRefusal)
	assert.Len(t, gaveUp, 1, "told once")
}

func TestTLSRefusal_NeverGivesUpAfterAHandshakeSucceeded(t *testing.T) {
	r := newTLSRefusal(1, func(error) { t.Error("gave up after a success") })
	r.succeeded()
	assert.ErrorIs(t, r.failed("10.0.0.1:2281", "zk1", certificateRefusal), ErrTLSHandshake)
	assert.NoError(t, r.final(), "after a session, a refusal counts as an unreachable server")
}

func TestTLSRefusal_ANetworkFailureIsNoRefusal(t *testing.T) {
	r := newTLSRefusal(1, func(error) { t.Error("gave up on a network failure") })
	for _, cause := range []error{net.ErrClosed, &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}} {
		err := r.failed("10.0.0.1:2281", "zk1", cause)
		assert.NotErrorIs(t, err, ErrTLSHandshake)
		assert.ErrorIs(t, err, cause)
	}
	assert.NoError(t, r.final())
}

func TestServerNames_AnAddressIsCheckedAgainstTheHostItWasResolvedFrom(t *testing.T) {
	names := newServerNames([]string{"localhost:2281", "10.1.2.3:2281"})
	assert.Equal(t, "localhost", names.of("127.0.0.1:2281", 0))
	assert.Equal(t, "10.1.2.3", names.of("10.1.2.3:2281", 0))
	assert.Equal(t, "10.9.9.9", names.of("10.9.9.9:2281", 0), "an address the connect string does not name")
}
