package framework

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseEnsembleConfig_ReadsMembersRolesAddressesAndVersion(t *testing.T) {
	data := "server.1=10.0.0.1:2888:3888:participant;10.0.0.1:2181\n" +
		"server.2=zk2.example:2888:3888:observer;0.0.0.0:2182\n" +
		"server.3=[::1]:2888:3888;[::]:2183\n" +
		"server.4=10.0.0.4:2888:3888:participant;2184\n" +
		"server.5=10.0.0.5:2888:3888|10.1.0.5:2888:3888;10.2.0.5:2185\n" +
		"server.6=10.0.0.6:2888:3888\n" +
		"group.1=1:2:3\nweight.1=1\n\n" +
		"version=10000000a\n"
	cfg, err := parseEnsembleConfig([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, int64(0x10000000a), cfg.Version)
	assert.Equal(t, []EnsembleMember{
		{ID: 1, Role: RoleParticipant, QuorumAddr: "10.0.0.1:2888", ElectionAddr: "10.0.0.1:3888", ClientAddr: "10.0.0.1:2181"},
		{ID: 2, Role: RoleObserver, QuorumAddr: "zk2.example:2888", ElectionAddr: "zk2.example:3888", ClientAddr: "zk2.example:2182"},
		{ID: 3, Role: RoleParticipant, QuorumAddr: "[::1]:2888", ElectionAddr: "[::1]:3888", ClientAddr: "[::1]:2183"},
		{ID: 4, Role: RoleParticipant, QuorumAddr: "10.0.0.4:2888", ElectionAddr: "10.0.0.4:3888", ClientAddr: "10.0.0.4:2184"},
		{ID: 5, Role: RoleParticipant, QuorumAddr: "10.0.0.5:2888", ElectionAddr: "10.0.0.5:3888", ClientAddr: "10.2.0.5:2185"},
		{ID: 6, Role: RoleParticipant, QuorumAddr: "10.0.0.6:2888", ElectionAddr: "10.0.0.6:3888"},
	}, cfg.Members)
	assert.Equal(t, []string{"10.0.0.1:2181", "zk2.example:2182", "[::1]:2183", "10.0.0.4:2184", "10.2.0.5:2185"},
		cfg.clientAddrs(), "a member without a client address is left out")
}

func TestParseEnsembleConfig_EmptyDataIsAnEmptyConfig(t *testing.T) {
	for _, data := range []string{"", "\n", "  \n\n"} {
		cfg, err := parseEnsembleConfig([]byte(data))
		require.NoError(t, err)
		assert.Empty(t, cfg.Members)
		assert.Empty(t, cfg.clientAddrs())
	}
	cfg, err := parseEnsembleConfig([]byte("version=0\n"))
	require.NoError(t, err)
	assert.Empty(t, cfg.clientAddrs(), "a version alone names no server")
}

func TestParseEnsembleConfig_RefusesWhatItCannotRead(t *testing.T) {
	for name, data := range map[string]string{
		"no equals sign":         "server.1 10.0.0.1:2888:3888;2181",
		"id not a number":        "server.x=10.0.0.1:2888:3888;2181",
		"negative id":            "server.-1=10.0.0.1:2888:3888;2181",
		"id named twice":         "server.1=a:1:2;3\nserver.1=b:1:2;3",
		"one port":               "server.1=10.0.0.1:2888;2181",
		"too many fields":        "server.1=10.0.0.1:2888:3888:participant:x;2181",
		"no host":                "server.1=:2888:3888;2181",
		"port out of range":      "server.1=10.0.0.1:2888:3888;70000",
		"client port not number": "server.1=10.0.0.1:2888:3888;10.0.0.1:abc",
		"quorum port zero":       "server.1=10.0.0.1:0:3888;2181",
		"unknown role":           "server.1=10.0.0.1:2888:3888:leader;2181",
		"unclosed bracket":       "server.1=[::1:2888:3888;2181",
		"client with two ports":  "server.1=10.0.0.1:2888:3888;10.0.0.1:2181:2182",
		"empty client part":      "server.1=10.0.0.1:2888:3888;",
		"version not hex":        "version=xyz",
		"binary garbage":         "\x00\x01\x02",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseEnsembleConfig([]byte(data))
			assert.ErrorIs(t, err, ErrInvalidEnsembleConfig)
		})
	}
}

func TestEnsembleHosts_FollowsOnlyANewerListThatNamesAnAddressInUse(t *testing.T) {
	var h ensembleHosts
	hp := h.newProvider()
	require.NoError(t, hp.Init([]string{"127.0.0.1:1", "127.0.0.1:2"}))
	changed, why := h.follow(5, []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, "127.0.0.1:1")
	assert.True(t, changed, why)
	assert.ElementsMatch(t, []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, hp.list())

	changed, why = h.follow(4, []string{"127.0.0.1:3"}, "127.0.0.1:1")
	assert.False(t, changed, "an older configuration (a lagging server's) is not followed")
	assert.NotEmpty(t, why)

	changed, why = h.follow(7, []string{"10.9.9.9:2181"}, "127.0.0.1:9")
	assert.False(t, changed, "a list naming none of the addresses in use (the client is behind a proxy) is not followed")
	assert.NotEmpty(t, why)

	changed, _ = h.follow(8, []string{"127.0.0.1:3"}, "127.0.0.1:3")
	assert.True(t, changed)
	next := h.newProvider()
	require.NoError(t, next.Init([]string{"gone.invalid:2181"}), "the connect string's names need not resolve")
	assert.Equal(t, []string{"127.0.0.1:3"}, next.list(), "a new connection dials the followed list, not the connect string")
	addr, _ := next.Next()
	assert.Equal(t, "127.0.0.1:3", addr)
}
