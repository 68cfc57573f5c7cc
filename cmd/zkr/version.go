package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionString says which zkr this is, from its build information: the
// module version of `go install ...@version`, or, for a build from a
// checkout that carries no version, the commit, its time and whether the
// tree was modified.
func versionString(info *debug.BuildInfo) string {
	if info == nil {
		return "zkr (unknown version)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	parts := []string{"zkr", version}
	if version == "(devel)" {
		var revision, at string
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value[:min(12, len(s.Value))]
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if revision != "" {
			parts = append(parts, revision)
		}
		if at != "" {
			parts = append(parts, at)
		}
		if modified {
			parts[len(parts)-1] += ", modified"
		}
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, " "), info.GoVersion)
}

// buildVersion is versionString of this binary.
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionString(info)
}
