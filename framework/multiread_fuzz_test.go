package framework

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// FuzzParseMultiRead reads any body as a multiRead reply of n reads: no
// panic, and a reply read without error has a result for every read.
func FuzzParseMultiRead(f *testing.F) {
	var w wire.JuteWriter
	w.Int32(wire.OpGetData)
	w.Bool(false)
	w.Int32(0)
	w.Int32(1)
	w.B = append(w.B, 'x')
	w.B = append(w.B, make([]byte, wire.StatLen)...)
	w.Int32(opErrorResult)
	w.Bool(false)
	w.Int32(-101)
	w.Int32(-101)
	w.Int32(-1)
	w.Bool(true)
	w.Int32(-1)
	f.Add(w.B, 2)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 1 || n > 1000 { // MultiRead sends at least one read
			return
		}
		res, err := parseMultiRead(body, n)
		if err == nil && len(res) != n {
			t.Fatalf("%d results for %d reads", len(res), n)
		}
	})
}
