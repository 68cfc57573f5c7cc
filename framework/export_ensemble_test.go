package framework

import "slices"

// FollowedServers returns the servers the client dials as the ensemble's
// configuration says, nil before it follows one (it dials the connect
// string's).
func FollowedServers(c *Client) []string {
	c.ensemble.mu.Lock()
	defer c.ensemble.mu.Unlock()
	return slices.Clone(c.ensemble.servers)
}
