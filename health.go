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
	if c.addrFile == "" {
		return c.listen
	}
	b, err := os.ReadFile(c.addrFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "healthcheck: %v; dialing --listen %s\n", err, c.listen)
		}
		return c.listen
	}
	return strings.TrimSpace(string(b))
}

// writeAddrFile records addr for the healthcheck. A rename makes the
// file's content whole whenever the healthcheck reads it.
func writeAddrFile(path, addr string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".addr-*")
	if err != nil {
		return fmt.Errorf("addr file: %w", err)
	}
	_, err = tmp.WriteString(addr + "\n")
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
