package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The healthcheck is a process of its own (Docker's HEALTHCHECK runs it
// next to the server) and sees only the environment: flags given to the
// server, such as `docker run … termarena --listen :3333`, never reach it.
// So the server records the address it really listens on in --addr-file,
// and the healthcheck dials that when it exists.

// healthAddr is the address the healthcheck dials: the one the running
// server recorded, else --listen.
func healthAddr(c *config, stderr io.Writer) string {
	addr, _ := readAddrFile(c, stderr)
	return addr
}

// readAddrFile reads what the running server recorded: the address it
// listens on, and the problem its last store check found ("" when none).
// Without a file, the address is --listen and the store is not known.
func readAddrFile(c *config, stderr io.Writer) (addr, storeProblem string) {
	if c.addrFile == "" {
		return c.listen, ""
	}
	b, err := os.ReadFile(c.addrFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "healthcheck: %v; dialing --listen %s\n", err, c.listen)
		}
		return c.listen, ""
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	for line := range strings.Lines(rest) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), storeLinePrefix); ok {
			storeProblem = p
		}
	}
	return strings.TrimSpace(first), storeProblem
}

// storeLinePrefix starts the addr file's line about a store that fails its
// check: the server sees its database, the healthcheck process cannot (the
// server holds the file's lock).
const storeLinePrefix = "store: "

// writeAddrFile records addr for the healthcheck, and the problem the
// store check found unless it is "". A rename makes the file's content
// whole whenever the healthcheck reads it.
func writeAddrFile(path, addr, storeProblem string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".addr-*")
	if err != nil {
		return fmt.Errorf("addr file: %w", err)
	}
	content := addr + "\n"
	if storeProblem != "" {
		content += storeLinePrefix + strings.ReplaceAll(storeProblem, "\n", " ") + "\n"
	}
	_, err = tmp.WriteString(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("addr file: %w", err)
	}
	return nil
}

// checkServer is `termarena healthcheck`: the server must answer SSH, and
// must not have reported its database broken (damaged, or unable to save).
func checkServer(c *config, stderr io.Writer) int {
	addr, problem := readAddrFile(c, stderr)
	if code := checkHealth(addr, stderr); code != 0 {
		return code
	}
	if problem != "" {
		fmt.Fprintln(stderr, "healthcheck: the server answers, but its database is not healthy:", problem)
		return 1
	}
	return 0
}

// checkHealth dials addr and expects an SSH identification line from
// termarena: a listening socket alone does not prove the server answers.
func checkHealth(addr string, stderr io.Writer) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: bad address %q: %v\n", addr, err)
		return 2
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 3*time.Second)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "SSH-2.0-termarena") {
		fmt.Fprintf(stderr, "healthcheck: unexpected answer %q: %v\n", strings.TrimSpace(line), err)
		return 1
	}
	return 0
}
