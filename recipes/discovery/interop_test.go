package discovery_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// peerJars are the Debian jars the Java peers run on: Jackson 2
// (libjackson2-databind-java) and ZooKeeper's own client (zookeeper), both
// installed by `make deps`.
var peerJars = []string{"jackson-databind", "jackson-core", "jackson-annotations",
	"zookeeper", "zookeeper-jute", "slf4j-api", "slf4j-nop"}

// javaPeer compiles testdata/discoverypeer into a directory of the test's
// and returns the classpath to run DiscoveryPeer with. Missing java,
// javac or jars fail the test, as the Curator peer's do: `make deps`
// installs them.
func javaPeer(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the Java peer needs %s: run `make deps`", tool)
	}
	var cp []string
	for _, jar := range peerJars {
		p := filepath.Join("/usr/share/java", jar+".jar")
		_, err := os.Stat(p)
		require.NoError(t, err, "the Java peer needs %s: run `make deps`", p)
		cp = append(cp, p)
	}
	var srcs []string
	require.NoError(t, filepath.WalkDir(filepath.Join("testdata", "discoverypeer"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			srcs = append(srcs, p)
		}
		return err
	}))
	classes := t.TempDir()
	args := append([]string{"-nowarn", "-Xlint:-path", "-cp", strings.Join(cp, ":"), "-d", classes}, srcs...)
	out, err := exec.Command("javac", args...).CombinedOutput()
	require.NoError(t, err, "javac: %s", out)
	return strings.Join(append([]string{classes}, cp...), ":")
}

// peerCase is one document for the Java peer: what Go wrote, how Java
// reads it, and what Java should write back.
type peerCase struct {
	name                string
	goWrote, javaWrites []byte
	full                bool
	cast, javaClass     string
	again               func(t *testing.T, data []byte, check bool) []byte
}

// written is a peerCase for an instance made in Go, which Java writes
// back as Go wrote it.
func written[T any](t *testing.T, name string, inst discovery.Instance[T], cast, javaClass string, opts ...discovery.Option) peerCase {
	c, err := discovery.NewCodec[T](opts...)
	require.NoError(t, err)
	data, err := c.Marshal(&inst)
	require.NoError(t, err)
	full := bytes.Contains(data, []byte(`"enabled":`))
	return peerCase{name: name, goWrote: data, javaWrites: data, full: full, cast: cast, javaClass: javaClass,
		again: func(t *testing.T, data []byte, _ bool) []byte {
			got, err := c.Unmarshal(data)
			require.NoError(t, err)
			out, err := c.Marshal(got)
			require.NoError(t, err)
			return out
		}}
}

// Jackson, on classes that mirror Curator's ServiceInstance as
// JsonInstanceSerializer uses them, reads every instance Go writes (the
// goldens as Go writes them back, and new instances with payloads of each
// kind of Java type information) with its payload of the right class, and
// writes it back as Go did; Go reads what Jackson wrote and writes it back
// byte for byte. Java drops unknown fields and gives a bare object payload
// its class, so for those two goldens it writes a file of its own.
func TestJavaPeer_ReadsWhatGoWritesAndGoReadsWhatJavaWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a JVM: not a unit test")
	}
	cp := javaPeer(t)
	var cases []peerCase
	for _, tc := range goldenCases(t) {
		want := tc.file
		if tc.out != "" {
			want = tc.out
		}
		if tc.java != "" {
			want = tc.java
		}
		cases = append(cases, peerCase{name: tc.file, goWrote: tc.run(t, golden(t, tc.file), false),
			javaWrites: golden(t, want), full: tc.full, cast: tc.cast, javaClass: tc.javaClass, again: tc.run})
	}
	details := discovery.WithPayloadClass("org.example.InstanceDetails")
	cases = append(cases,
		written(t, "double", discovery.Instance[float64]{Name: "d", Payload: 7}, "java.lang.Double", "java.lang.Double",
			discovery.WithPayloadClass("java.lang.Double")),
		written(t, "integer", discovery.Instance[int]{Name: "i", Payload: -7}, "java.lang.Integer", "java.lang.Integer"),
		written(t, "boolean", discovery.Instance[bool]{Name: "b", Payload: true}, "java.lang.Boolean", "java.lang.Boolean",
			discovery.WithEnabledField()),
		written(t, "set", discovery.Instance[[]int]{Name: "s", Payload: []int{1, 2}}, "java.util.Set", "java.util.HashSet",
			discovery.WithPayloadClass("java.util.HashSet")),
		written(t, "emptymap", discovery.Instance[map[string]int]{Name: "m", Payload: map[string]int{}}, "java.util.Map",
			"java.util.LinkedHashMap"),
		written(t, "smalllong", discovery.Instance[int64]{Name: "l", Payload: 7}, "java.lang.Long", "java.lang.Long",
			discovery.WithPayloadClass("java.lang.Long")),
		written(t, "details", discovery.Instance[*InstanceDetails]{
			Name: "n\x02\u2028𝄞", ID: "x", Address: "::1", Port: intp(-1 << 31), SSLPort: intp(1<<31 - 1),
			Payload: &InstanceDetails{Description: "\"quoted\" \\ </tag> \x7f \U0001F600", Weight: -3},
			// Not 19 digits: Debian's Jackson 2.14 refuses every 19-digit long, a bug of its own.
			RegistrationTimeUTC: 1 << 59, ServiceType: discovery.DynamicSequential, Disabled: true,
			URISpec: spec(t, "{scheme}://{address}:{port}/{ x }"),
		}, "org.example.InstanceDetails", "org.example.InstanceDetails", details, discovery.WithEnabledField()),
	)

	in, out := t.TempDir(), t.TempDir()
	args := []string{"-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", cp, "DiscoveryPeer", out}
	for _, c := range cases {
		p := filepath.Join(in, c.name)
		require.NoError(t, os.WriteFile(p, c.goWrote, 0o644))
		mode := "compatible"
		if c.full {
			mode = "full"
		}
		args = append(args, mode, c.cast, p, c.name)
	}
	stdout, err := exec.Command("java", args...).Output()
	require.NoError(t, err, "java: %s", stdout)
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(stdout)), "\n") {
		f := strings.Fields(l)
		require.GreaterOrEqual(t, len(f), 2, l)
		lines[f[1]] = l
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := lines[c.name]
			require.True(t, strings.HasPrefix(line, "ok "), "Java could not read what Go wrote: %s\n%s", line, c.goWrote)
			assert.Equal(t, c.javaClass, strings.Fields(line)[2], "the class Java reads the payload as")
			javaWrote, err := os.ReadFile(filepath.Join(out, c.name))
			require.NoError(t, err)
			assert.Equal(t, string(c.javaWrites), string(javaWrote), "what Java writes back")
			assert.Equal(t, string(javaWrote), string(c.again(t, javaWrote, false)), "what Go writes back of Java's")
		})
	}
}
