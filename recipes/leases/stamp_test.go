package leases_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

func TestStamp_EncodeParseRoundTrip(t *testing.T) {
	renewed := time.Date(2026, 11, 23, 17, 40, 0, 123456789, time.UTC)
	tests := []struct {
		name  string
		stamp leases.Stamp
		data  []byte
		want  string
	}{
		{"never renewed", leases.Stamp{Mode: leases.SessionMode, Bound: 30 * time.Second}, []byte("host-1/42"),
			"#zkrecipes-lease/1\nmode=session\nbound=30s\n\nhost-1/42"},
		{"renewed", leases.Stamp{Mode: leases.TTLMode, Bound: time.Minute, Renewed: renewed, Renewals: 3, Holder: "h"}, nil,
			"#zkrecipes-lease/1\nmode=ttl\nbound=1m0s\nrenewed=2026-11-23T17:40:00.123456789Z\nrenewals=3\nholder=h\n\n"},
		{"data with blank lines", leases.Stamp{Mode: leases.TTLMode, Bound: time.Second}, []byte("a\n\nb"),
			"#zkrecipes-lease/1\nmode=ttl\nbound=1s\n\na\n\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			encoded := tt.stamp.Encode(tt.data)
			assert.Equal(t, tt.want, string(encoded))
			s, data, ok := leases.ParseStamp(encoded)
			require.True(t, ok)
			assert.Equal(t, tt.stamp, s)
			assert.Equal(t, string(tt.data), string(data))
		})
	}
}

// Data without a valid stamp, such as a Curator lease's, is returned whole.
func TestStamp_ParseRefusesOtherData(t *testing.T) {
	for _, data := range []string{
		"", "10.0.0.7", "#zkrecipes-lease/1\n", "#zkrecipes-lease/1\nmode=ttl\nbound=1s",
		"#zkrecipes-lease/1\nmode=ttl\nbound=soon\n\n", "#zkrecipes-lease/1\nmode=other\nbound=1s\n\n",
		"#zkrecipes-lease/1\nmode=ttl\nbound=-1s\n\n", "#zkrecipes-lease/1\nmode=ttl\nbound=1s\nrenewals=x\n\n",
	} {
		s, got, ok := leases.ParseStamp([]byte(data))
		assert.False(t, ok, "%q", data)
		assert.Zero(t, s)
		assert.Equal(t, data, string(got))
	}
}
