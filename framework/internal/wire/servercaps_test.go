package wire

import "testing"

func TestZookeeperVersion_ReadsSrvrAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer       string
		major, minor int
		ok           bool
	}{
		{"Zookeeper version: 3.8.0-5a02a05eddb59aee6ac762f7ea82e92a68eb9c0f, built on 2022-02-25 08:49 UTC\nLatency min/avg/max: 0/0.0/0\n", 3, 8, true},
		{"Zookeeper version: 3.4.14-4c25d480e66aadd371de8bd2fd8da255ac140bcf, built on 03/06/2019 16:18 GMT\n", 3, 4, true},
		{"Zookeeper version: 3.10.1\n", 3, 10, true},
		{"ClickHouse Keeper version: v23.3.1.2823-lts\n", 0, 0, false},
		{"srvr is not executed because it is not in the whitelist.\n", 0, 0, false},
		{"", 0, 0, false},
	} {
		major, minor, ok := zookeeperVersion(tc.answer)
		if major != tc.major || minor != tc.minor || ok != tc.ok {
			t.Errorf("zookeeperVersion(%q) = %d, %d, %v; want %d, %d, %v", tc.answer, major, minor, ok, tc.major, tc.minor, tc.ok)
		}
	}
}
