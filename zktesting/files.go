package zktesting

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// writeConfig writes dir/zoo.cfg and, for an ensemble member (id > 0), the
// myid file in the data directory.
func writeConfig(dir string, cfg serverConfig, id int) error {
	if err := os.MkdirAll(cfg.dataDir, 0o755); err != nil {
		return fmt.Errorf("zktesting: %w", err)
	}
	if id > 0 {
		myid := filepath.Join(cfg.dataDir, "myid")
		if err := os.WriteFile(myid, []byte(strconv.Itoa(id)+"\n"), 0o644); err != nil {
			return fmt.Errorf("zktesting: %w", err)
		}
	}
	if cfg.reconfig {
		if err := writeDynamic(dir, &cfg); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "zoo.cfg"), []byte(cfg.render()), 0o644); err != nil {
		return fmt.Errorf("zktesting: %w", err)
	}
	return nil
}

// writeDynamic writes the dynamic configuration file of a member started
// WithReconfig, once: the server rewrites it (under a new name, which it
// writes into zoo.cfg) as it is reconfigured, and a later rewrite of
// zoo.cfg (SetMaxSessionTimeout) must name the server's latest file, not
// the first one.
func writeDynamic(dir string, cfg *serverConfig) error {
	cfg.dynamicFile = filepath.Join(dir, "zoo.cfg.dynamic")
	if old, err := os.ReadFile(filepath.Join(dir, "zoo.cfg")); err == nil {
		for _, line := range strings.Split(string(old), "\n") {
			if f, ok := strings.CutPrefix(strings.TrimSpace(line), "dynamicConfigFile="); ok {
				cfg.dynamicFile = f
				return nil
			}
		}
	}
	if err := os.WriteFile(cfg.dynamicFile, []byte(cfg.renderDynamic()), 0o644); err != nil {
		return fmt.Errorf("zktesting: %w", err)
	}
	return nil
}

// javaArgs returns the JVM command line of a server whose files are in dir.
// The extra options come last but for the main class, so they win.
func javaArgs(classpath []string, dir string, extra []string) []string {
	args := []string{
		"-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
		"-Djava.awt.headless=true",
		"-cp", strings.Join(classpath, string(os.PathListSeparator)),
		// slf4j-simple writes to stderr, which goes to zookeeper.log.
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dzookeeper.log.dir=" + dir,
		// Reap empty containers (and expired TTL nodes) every second.
		"-Dznode.container.checkIntervalMs=1000",
	}
	args = append(args, extra...)
	return append(args, "org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(dir, "zoo.cfg"))
}
