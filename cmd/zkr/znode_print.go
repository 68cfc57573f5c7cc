package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// statJSON is a node's stat as get, set, stat and create --json print it:
// ZooKeeper's Stat, times in RFC 3339 (UTC), the session as zkCli.sh
// shows it.
type statJSON struct {
	Czxid          int64  `json:"czxid"`
	Mzxid          int64  `json:"mzxid"`
	Pzxid          int64  `json:"pzxid"`
	Ctime          string `json:"ctime"`
	Mtime          string `json:"mtime"`
	Version        int32  `json:"version"`
	Cversion       int32  `json:"cversion"`
	Aversion       int32  `json:"aversion"`
	EphemeralOwner string `json:"ephemeral_owner"`
	DataLength     int32  `json:"data_length"`
	NumChildren    int32  `json:"num_children"`
}

// newStatJSON converts a stat.
func newStatJSON(s *zk.Stat) *statJSON {
	if s == nil {
		return nil
	}
	return &statJSON{
		Czxid: s.Czxid, Mzxid: s.Mzxid, Pzxid: s.Pzxid,
		Ctime: millisText(s.Ctime), Mtime: millisText(s.Mtime),
		Version: s.Version, Cversion: s.Cversion, Aversion: s.Aversion,
		EphemeralOwner: "0x" + strconv.FormatInt(s.EphemeralOwner, 16),
		DataLength:     s.DataLength, NumChildren: s.NumChildren,
	}
}

// millisText is a server time in milliseconds since the epoch, in RFC 3339.
func millisText(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}

// printStat writes a stat as zkCli.sh's stat does, one field a line.
func printStat(w io.Writer, s *zk.Stat) error {
	j := newStatJSON(s)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, f := range []struct{ name, value string }{
		{"cZxid", hexZxid(j.Czxid)}, {"ctime", j.Ctime}, {"mZxid", hexZxid(j.Mzxid)}, {"mtime", j.Mtime},
		{"pZxid", hexZxid(j.Pzxid)}, {"cversion", strconv.Itoa(int(j.Cversion))},
		{"dataVersion", strconv.Itoa(int(j.Version))}, {"aclVersion", strconv.Itoa(int(j.Aversion))},
		{"ephemeralOwner", j.EphemeralOwner}, {"dataLength", strconv.Itoa(int(j.DataLength))},
		{"numChildren", strconv.Itoa(int(j.NumChildren))},
	} {
		fmt.Fprintf(tw, "%s\t= %s\n", f.name, f.value)
	}
	return tw.Flush()
}

// hexZxid is a zxid as zkCli.sh shows it.
func hexZxid(z int64) string { return "0x" + strconv.FormatInt(z, 16) }

// dataJSON carries a node's data in JSON: as text when it is UTF-8, else
// in base64, as zkr watch --json does.
type dataJSON struct {
	Data    *string `json:"data,omitempty"`
	DataB64 *string `json:"data_b64,omitempty"`
}

// newDataJSON carries data.
func newDataJSON(data []byte) dataJSON {
	if utf8.Valid(data) {
		s := string(data)
		return dataJSON{Data: &s}
	}
	s := base64.StdEncoding.EncodeToString(data)
	return dataJSON{DataB64: &s}
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
