package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// A session left untouched in the lobby is warned, a key keeps it, and
// left again it is closed with a reason. Sessions in a room, in the queue
// or watching are never idle, however long they wait.
func TestIdleLobbySessionIsWarnedThenClosed(t *testing.T) {
	cfg := faultConfig()
	cfg.IdleTimeout = 4 * time.Second
	h := startWith(t, t.TempDir(), cfg, nil, lobby.RoomsConfig{})

	host := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("host", sshtest.NewKey(t))), 80, 24, "")
	host.WaitFor(wait, "Welcome, host!")
	host.Type("c")
	host.WaitFor(wait, "New room")
	host.Type("\r")
	host.WaitFor(wait, "r1 · 1v1 · casual")
	queued := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("queued", sshtest.NewKey(t))), 80, 24, "play pong-1v1")
	queued.WaitFor(wait, "Looking for a pong-1v1 match")
	watcher := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("watcher", sshtest.NewKey(t))), 80, 24, "spectate r1")
	watcher.WaitFor(wait, "host")

	idle := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("idle", sshtest.NewKey(t))), 80, 24, "")
	idle.WaitFor(wait, "Welcome, idle!")
	idle.WaitFor(wait, "Idle in the lobby: this session closes in")
	idle.Type("j")
	waitUntil(t, "the warning to clear after a key", wait, func() bool { return !strings.Contains(idle.Screen(), "Idle in the lobby") })
	idle.WaitFor(wait, "Idle in the lobby: this session closes in")
	code, err := idle.Wait(wait)
	if err != nil || !strings.Contains(string(idle.Raw()), "Closed after 4 seconds idle in the lobby.") {
		t.Fatalf("idle lobby session: code %d err %v, screen:\n%s", code, err, idle.Screen())
	}

	// Longer than the limit has passed for the others: all still there.
	for name, tm := range map[string]*sshtest.Term{"in a room": host, "queued": queued, "watching": watcher} {
		select {
		case <-tm.Ended():
			t.Errorf("the session %s was closed:\n%s", name, tm.Screen())
		default:
		}
		if strings.Contains(tm.Screen(), "Idle in the lobby") {
			t.Errorf("the session %s was warned:\n%s", name, tm.Screen())
		}
	}
}

// A connection that logs in and opens no session is closed.
func TestConnectionWithoutASessionIsClosed(t *testing.T) {
	cfg := faultConfig()
	cfg.SessionOpenTimeout = 2 * time.Second
	h := start(t, t.TempDir(), cfg, nil)
	c := sshtest.Dial(t, h.Addr, sshtest.Config("nobody", sshtest.NewKey(t)))
	closed := make(chan error, 1)
	go func() { closed <- c.Wait() }()
	select {
	case <-closed:
	case <-time.After(3 * wait):
		t.Fatal("a connection with no session is still open")
	}
	// One with a session is not, and is after its session ends.
	c2 := sshtest.Dial(t, h.Addr, sshtest.Config("somebody", sshtest.NewKey(t)))
	tm := sshtest.Open(t, c2, 80, 24, "")
	tm.WaitFor(wait, "Welcome, somebody!")
	go func() { closed <- c2.Wait() }()
	time.Sleep(2 * cfg.SessionOpenTimeout)
	select {
	case <-closed:
		t.Fatal("a connection with a lobby session was closed")
	default:
	}
	tm.Type("q")
	if _, err := tm.Wait(wait); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(3 * wait):
		t.Fatal("the connection is still open after its only session ended")
	}
}

// A client slow to log in (a person typing his key's passphrase) is not
// dropped for having no session open: the session-open timeout counts
// from login, as --session-open-timeout says, and the handshake has a
// timeout of its own. It counted from the TCP accept, so a login slower
// than it (or a handshake on a busy server) ended in "handshake failed:
// EOF".
func TestSlowLoginIsNotClosedForOpeningNoSession(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.SessionOpenTimeout = time.Second // the handshake's own is 10 s
	h := start(t, t.TempDir(), cfg, nil)
	key := sshtest.NewKey(t)
	cc := sshtest.Config("slow", key)
	cc.Auth = []gossh.AuthMethod{gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		time.Sleep(3 * cfg.SessionOpenTimeout) // the passphrase being typed
		return []gossh.Signer{key}, nil
	})}
	c := sshtest.Dial(t, h.Addr, cc)
	if r := sshtest.RunOn(t, c, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "slow") {
		t.Fatalf("whoami after a slow login: %+v", r)
	}
	// Logged in, it still may not sit there without a session.
	closed := make(chan error, 1)
	go func() { closed <- c.Wait() }()
	select {
	case <-closed:
	case <-time.After(3 * wait):
		t.Fatal("a connection with no session is still open")
	}
}
