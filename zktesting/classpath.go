package zktesting

import (
	"archive/zip"
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// debianJar is where Debian's libzookeeper-java installs the server.
const debianJar = "/usr/share/java/zookeeper.jar"

// debianJavaDir is where Debian installs Java libraries, slf4j-simple among them.
const debianJavaDir = "/usr/share/java"

// findJava returns the java executable from PATH.
func findJava() (string, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoJava, err)
	}
	return java, nil
}

// findJar returns the ZooKeeper jar to run: the option, else ZOOKEEPER_JAR,
// else Debian's.
func findJar(option string) (string, error) {
	jar := option
	if jar == "" {
		jar = os.Getenv("ZOOKEEPER_JAR")
	}
	if jar == "" {
		jar = debianJar
	}
	info, err := os.Stat(jar)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoZooKeeper, err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("%w: %s is a directory", ErrNoZooKeeper, jar)
	}
	return jar, nil
}

// classpath returns the class path that runs the server in jar.
//
// Debian's jar names its dependencies in its manifest (Class-Path), so the
// JVM finds them itself. A jar without one, such as lib/zookeeper-3.8.x.jar
// of the Apache tarball, gets every other jar of its directory, except a
// logback binding, whose default configuration logs at DEBUG. Either way
// slf4j-simple is added as the logging binding when one is found next to the
// jar or in Debian's Java directory: without a binding the server logs
// nothing, and a failed start could not say why.
func classpath(jar string) ([]string, error) {
	cp := []string{jar}
	hasManifestCP, err := manifestHasClassPath(jar)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoZooKeeper, err)
	}
	dir := filepath.Dir(jar)
	if !hasManifestCP {
		siblings, err := filepath.Glob(filepath.Join(dir, "*.jar"))
		if err != nil {
			return nil, err
		}
		for _, s := range siblings {
			base := filepath.Base(s)
			if s != jar && !strings.HasPrefix(base, "logback-") {
				cp = append(cp, s)
			}
		}
	}
	for _, d := range []string{dir, debianJavaDir} {
		simple := filepath.Join(d, "slf4j-simple.jar")
		if _, err := os.Stat(simple); err == nil {
			return append(cp, simple), nil
		}
	}
	return cp, nil
}

// manifestHasClassPath tells whether the jar's manifest has a Class-Path.
func manifestHasClassPath(jar string) (bool, error) {
	r, err := zip.OpenReader(jar)
	if err != nil {
		return false, err
	}
	defer r.Close()
	f, err := r.Open("META-INF/MANIFEST.MF")
	if err != nil {
		return false, nil // no manifest: no Class-Path
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "Class-Path:") {
			return true, nil
		}
	}
	return false, sc.Err()
}
