package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crash ends the process the way a bug in the server does: a panic in a
// goroutine nothing recovers, which Go's runtime turns into exit status 2.
func crash() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic, as a real bug would raise
	}()
	<-done
}

// unitFile is a systemd unit read as systemd reads it: sections of
// key=value lines, a key given twice keeping both values.
type unitFile map[string]map[string][]string

func readUnit(t *testing.T, path string) unitFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: not key=value: %q", path, line)
			}
			u[section][strings.TrimSpace(k)] = append(u[section][strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// last is the value systemd uses for a single-valued key.
func (u unitFile) last(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// restartsAfter reports whether the unit's service is restarted when the
// process exits with code (systemd.service(5): Restart=, and the statuses
// RestartPreventExitStatus= exempts; an empty assignment resets the list).
func (u unitFile) restartsAfter(code int) bool {
	switch u.last("Service", "Restart") {
	case "always", "on-failure":
	default:
		return false // "no", and on-abnormal/on-abort/on-watchdog ignore exit codes
	}
	var prevented []string
	for _, v := range u["Service"]["RestartPreventExitStatus"] {
		if v == "" {
			prevented = nil
			continue
		}
		prevented = append(prevented, strings.Fields(v)...)
	}
	return !slices.Contains(prevented, strconv.Itoa(code))
}

// TestSystemdUnitRestartsACrashedServer checks the unit against the exit
// codes the binary really produces: a crash (measured from a process that
// panics, as a bug in the server would) must be restarted, and a start that
// fails at once every time (a usage error, a damaged database) must stop
// being retried after a few tries rather than loop for ever.
func TestSystemdUnitRestartsACrashedServer(t *testing.T) {
	u := readUnit(t, "deploy/systemd/termarena.service")

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), "TERMARENA_TEST_CRASH=1")
	var crashOut bytes.Buffer
	cmd.Stderr = &crashOut
	_ = cmd.Run()
	crashCode := cmd.ProcessState.ExitCode()
	if crashCode == 0 || !strings.Contains(crashOut.String(), "panic:") {
		t.Fatalf("the crashing process exited %d: %s", crashCode, crashOut.String())
	}
	if !u.restartsAfter(crashCode) {
		t.Errorf("a crashed server (exit %d, as Go's runtime exits after a panic) is not restarted: Restart=%s RestartPreventExitStatus=%q",
			crashCode, u.last("Service", "Restart"), u["Service"]["RestartPreventExitStatus"])
	}

	usageCode := run(ctx, []string{"--no-such-flag"}, env(nil), io.Discard, io.Discard)
	failCode := 1 // serve's failures, such as a damaged database (TestDamagedDatabaseRefused)
	for _, code := range []int{usageCode, failCode} {
		if !u.restartsAfter(code) {
			continue
		}
		burst, _ := strconv.Atoi(u.last("Unit", "StartLimitBurst"))
		interval, _ := time.ParseDuration(u.last("Unit", "StartLimitIntervalSec"))
		every, _ := time.ParseDuration(u.last("Service", "RestartSec"))
		// Starts that each fail at once come every RestartSec; the limit
		// stops them only if burst of them fit in the interval.
		if burst <= 0 || interval < time.Duration(burst)*every {
			t.Errorf("exit %d is restarted, but StartLimitBurst=%q in StartLimitIntervalSec=%q never stops restarts every %v",
				code, u.last("Unit", "StartLimitBurst"), u.last("Unit", "StartLimitIntervalSec"), every)
		}
	}
}
