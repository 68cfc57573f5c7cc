package reliability_test

import (
	"os"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// chaosTLSOn tells whether the chaos run's clients speak TLS to the
// members' TLS ports (CHAOS_TLS=1; make chaos TLS=1). The observer and
// the Curator peer stay on the plain ports, beside them.
func chaosTLSOn() bool { return os.Getenv("CHAOS_TLS") == "1" }

// chaosServerOptions returns the ensemble's options of the run's mode: a
// TLS port on every member when chaosTLSOn.
func chaosServerOptions() []zktesting.Option {
	if !chaosTLSOn() {
		return nil
	}
	return []zktesting.Option{zktesting.WithTLS()}
}

// chaosMembers returns the addresses the run's clients reach the members
// on (through their proxies), and the options that go with them: over
// TLS, a client certificate of the ensemble's CA.
func chaosMembers(e *zktesting.Ensemble) ([]string, []framework.Option) {
	if !chaosTLSOn() {
		return e.Addrs(), nil
	}
	return e.TLSAddrs(), []framework.Option{framework.WithTLS(e.TLS().ClientConfig("chaos"))}
}

// chaosFaultKinds returns the kinds of fault the run injects: over TLS,
// none that the proxy picks from the packets TLS hides from it.
func chaosFaultKinds() []string {
	if chaosTLSOn() {
		return chaos.TLSFaultKinds()
	}
	return chaos.FaultKinds()
}
