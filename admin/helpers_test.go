package admin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// fp is a realistic fingerprint for a test player.
func fp(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type sent struct{ fp, text string }

type muteCall struct {
	fp     string
	until  time.Time
	reason string
}

// fakeSessions is the live server as the admin commands see it: a list of
// sessions that Kick removes, and a record of every call.
type fakeSessions struct {
	mu        sync.Mutex
	sessions  []SessionInfo
	rooms     []lobby.RoomInfo
	kicks     []sent
	tells     []sent
	announces []string
	mutes     []muteCall
	calls     int
}

func (f *fakeSessions) count(fingerprint string) int {
	n := 0
	for _, s := range f.sessions {
		if s.Fingerprint == fingerprint {
			n++
		}
	}
	return n
}

func (f *fakeSessions) Kick(fingerprint, reason string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.kicks = append(f.kicks, sent{fingerprint, reason})
	n := f.count(fingerprint)
	f.sessions = slices.DeleteFunc(f.sessions, func(s SessionInfo) bool { return s.Fingerprint == fingerprint })
	return n
}

func (f *fakeSessions) Tell(fingerprint, text string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.tells = append(f.tells, sent{fingerprint, text})
	return f.count(fingerprint)
}

func (f *fakeSessions) Announce(text string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.announces = append(f.announces, text)
	return len(f.sessions)
}

func (f *fakeSessions) List() []SessionInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return slices.Clone(f.sessions)
}

func (f *fakeSessions) Rooms() []lobby.RoomInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return slices.Clone(f.rooms)
}

func (f *fakeSessions) RoleChanged(fingerprint, role string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
}

func (f *fakeSessions) Muted(fingerprint string, until time.Time, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.mutes = append(f.mutes, muteCall{fingerprint, until, reason})
}

// env is a real store in a temp dir with alice (the admin), bob and carol
// known, a fake clock and fake sessions.
type env struct {
	t     *testing.T
	path  string
	st    *bolt.Store
	clock *clock
	live  *fakeSessions
	tmp   string
	// admins are the keys in the admin keys file besides the caller's.
	admins map[string]bool
}

// fp(name) for the test players, as constants so tests share no state.
const (
	fpAlice = "SHA256:K9gGyX8OAK8aH8Myj6djqSaXI8jbj6xPk69x2xhtbpA"
	fpBob   = "SHA256:gbY32PzSxtpjWeaWMROhFw3nleS3JbhNHgtM/Z7FjOk"
	fpCarol = "SHA256:TCbZB0wn2J7eWScMCsFLceBxsVI5UZ91R0svO6Y0gfU"
	fpDave  = "SHA256:YeoIA/iFNSO3d9QUrOMTDNTT+S3izX/4aVwzfXnC7u4" // never logs in
)

func adminCaller() Caller { return Caller{ID: fpAlice, Name: "alice", Admin: true} }

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{
		t:     t,
		path:  filepath.Join(t.TempDir(), "termarena.db"),
		clock: &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)},
		live:  &fakeSessions{},
		tmp:   t.TempDir(),
	}
	e.open()
	t.Cleanup(func() { _ = e.st.Close() })
	for _, name := range []string{"alice", "bob", "carol"} {
		if _, _, err := e.st.Login(context.Background(), fp(name), "ssh-ed25519", name); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) open() {
	e.t.Helper()
	st, err := bolt.Open(e.path, bolt.Options{Now: e.clock.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	e.st = st
}

func (e *env) reopen() {
	e.t.Helper()
	if err := e.st.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

func (e *env) deps() Deps {
	return Deps{Store: e.st, Sessions: e.live, Now: e.clock.Now, TempDir: e.tmp, IsAdmin: func(fp string) bool { return fp == fpAlice || e.admins[fp] }}
}

// online adds a live session.
func (e *env) online(name, fingerprint, addr string) {
	e.live.mu.Lock()
	defer e.live.mu.Unlock()
	e.live.sessions = append(e.live.sessions, SessionInfo{Name: name, Fingerprint: fingerprint, Addr: addr,
		Where: "lobby", Since: e.clock.Now().Add(-5 * time.Minute), Guest: strings.HasPrefix(name, "guest-")})
}

type result struct {
	code        int
	out, errOut string
}

func (e *env) runAs(c Caller, args ...string) result {
	e.t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), e.deps(), c, args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runAs(adminCaller(), args...)
}

// must runs an admin command that has to succeed.
func (e *env) must(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.code != ExitOK {
		e.t.Fatalf("admin %q: exit %d, stderr %q", args, r.code, r.errOut)
	}
	return r.out
}

func (e *env) expect(code int, args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != code {
		e.t.Errorf("admin %q: exit %d, want %d (stdout %q, stderr %q)", args, r.code, code, r.out, r.errOut)
	}
	return r
}

func (e *env) auditLog() []store.AuditEntry {
	e.t.Helper()
	log, err := e.st.AuditLog(context.Background(), time.Time{}, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return log
}
