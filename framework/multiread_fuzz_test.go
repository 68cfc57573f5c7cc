package framework

import "testing"

// FuzzParseMultiRead reads any body as a multiRead reply of n reads: no
// panic, and a reply read without error has a result for every read.
func FuzzParseMultiRead(f *testing.F) {
	var w juteWriter
	w.int32(opGetData)
	w.bool(false)
	w.int32(0)
	w.int32(1)
	w.b = append(w.b, 'x')
	w.b = append(w.b, make([]byte, statLen)...)
	w.int32(opErrorResult)
	w.bool(false)
	w.int32(-101)
	w.int32(-101)
	w.int32(-1)
	w.bool(true)
	w.int32(-1)
	f.Add(w.b, 2)
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
