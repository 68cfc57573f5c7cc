package framework

// HoldBackgroundDeletes holds every background delete of c started from
// now on back until release is called; held returns the channels that
// close when each held delete has ended.
func HoldBackgroundDeletes(c *Client) (release func(), held func() []<-chan struct{}) {
	s := &seams{gate: make(chan struct{})}
	c.mu.Lock()
	c.seams = s
	c.mu.Unlock()
	release = func() { close(s.gate) }
	held = func() []<-chan struct{} {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]<-chan struct{}(nil), s.held...)
	}
	return release, held
}
