package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

func TestLobbyChatOverSSH(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 100, 40, "")
	alice.WaitFor(wait, "Welcome, alice!")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")

	alice.Type("t")
	alice.Type("hello bob\r")
	bob.WaitFor(wait, "alice", "hello bob")

	guest := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("g", nil)), 100, 40, "")
	guest.WaitFor(wait, "Welcome, guest-", "hello bob") // guests read the lobby's history
	guest.Type("t")
	guest.Type("hi all\r")
	guest.WaitFor(wait, "guests can read but not chat")

	// An admin mutes from chat: persisted, listed, and bob is told.
	root := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ops", adminKey)), 100, 40, "")
	root.WaitFor(wait, "Welcome, ops!")
	root.Type("t")
	root.Type("/mute bob 5m spam\r")
	root.WaitFor(wait, "bob is muted")
	bob.WaitFor(wait, "muted")
	r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin mutes --json")
	var mutes []struct {
		Name, Reason string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &mutes); err != nil || len(mutes) != 1 || mutes[0].Name != "bob" || mutes[0].Reason != "spam" {
		t.Fatalf("admin mutes: %v %s", err, r.Stdout)
	}
}

// mutedStatus reports whether the screen still shows the pane's "you are
// muted …" line (a chat line that said so starts with a dash and may stay).
func mutedStatus(scr string) bool {
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(strings.Trim(l, "│ ")), "you are muted") {
			return true
		}
	}
	return false
}

// TestUnmuteIsShownOverSSH: after `admin unmute` and after a moderator's
// /unmute, the player's "you are muted" line goes and they are told they
// can chat again.
func TestUnmuteIsShownOverSSH(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin mute bob 5m caps"); r.Code != 0 {
		t.Fatalf("admin mute: %d %s", r.Code, r.Stderr)
	}
	bob.WaitFor(wait, "you are muted for")
	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin unmute bob"); r.Code != 0 {
		t.Fatalf("admin unmute: %d %s", r.Code, r.Stderr)
	}
	unmuted := func(notices int) {
		t.Helper()
		deadline := time.Now().Add(wait)
		for scr := bob.Screen(); mutedStatus(scr) || strings.Count(scr, "you can chat again") < notices; scr = bob.Screen() {
			if time.Now().After(deadline) {
				t.Fatalf("after the unmute bob sees:\n%s", scr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	unmuted(1)

	// The same from chat, by a moderator.
	root := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ops", adminKey)), 100, 40, "")
	root.WaitFor(wait, "Welcome, ops!")
	root.Type("t")
	root.Type("/mute bob 5m spam\r")
	root.WaitFor(wait, "bob is muted")
	bob.WaitFor(wait, "you are muted for 4m")
	root.Type("t")
	root.Type("/unmute bob\r")
	root.WaitFor(wait, "bob is no longer muted")
	unmuted(2)
}

// cellsAfter finds the first row of tm's screen where prefix is drawn and
// returns the runes in the cells after it, one per cell.
func cellsAfter(tm *sshtest.Term, prefix string, n int) []rune {
	for y, line := range strings.Split(tm.Screen(), "\n") {
		if i := strings.Index(line, prefix); i >= 0 {
			x := utf8.RuneCountInString(line[:i+len(prefix)])
			out := make([]rune, n)
			for k := range out {
				out[k] = tm.Cell(x+k, y).Char
			}
			return out
		}
	}
	return nil
}

// TestChatInAGameOverSSH: during a game, what is said in CJK and emoji is
// drawn in the room's chat pane as itself, two cells a rune, and an
// announcement shows across the top of the game screen.
func TestChatInAGameOverSSH(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	rc := lobby.RoomsConfig{Room: game.RoomConfig{Countdown: time.Second, Grace: 20 * time.Second}}
	h := startWith(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}, rc)
	alice := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("alice", sshtest.NewKey(t))), 80, 30, "")
	alice.WaitFor(wait, "Welcome, alice!", "no open rooms")
	alice.Type("c")
	alice.WaitFor(wait, "New room", "mode: 1v1")
	alice.Type("\r")
	alice.WaitFor(wait, "r1 · 1v1 · casual", "(you)")
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 200, 50, "join r1")
	bob.WaitFor(wait, "alice", "bob", "(you)")
	alice.Type("r")
	bob.Type("r")
	alice.WaitFor(wait, "▸alice 0", "bob 0", "chat · room r1")

	bob.Type("t")
	bob.Type("漢字😀 ok\r")
	// The emulator draws every rune one cell wide; the game screen puts
	// each rune in its column as a terminal that knows wide runes does.
	alice.WaitFor(wait, "bob: 漢")
	want := []rune{'漢', 0, '字', 0, '😀', 0, ' ', 'o', 'k'}
	inColumns := func() bool { // 0: the right half of the rune before
		got := cellsAfter(alice, "bob: ", len(want))
		for i, r := range want {
			if r != 0 && (i >= len(got) || got[i] != r) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(wait)
	for !inColumns() { // a frame may be read half-way through
		if time.Now().After(deadline) {
			t.Fatalf("alice's pane has %q after \"bob: \", want %q:\n%s", string(cellsAfter(alice, "bob: ", len(want))), string(want), alice.Screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	bob.WaitFor(wait, "bob: 漢")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin announce restart at 18:00"); r.Code != 0 {
		t.Fatalf("admin announce: %d %s", r.Code, r.Stderr)
	}
	for _, tm := range []*sshtest.Term{alice, bob} {
		scr := tm.WaitFor(wait, "Announcement: restart at 18:00")
		if first, _, _ := strings.Cut(scr, "\n"); !strings.Contains(first, "Announcement: restart at 18:00") {
			t.Fatalf("the announcement is not across the top:\n%s", scr)
		}
	}
}

// Chat's /mute and `admin mute` read and print durations the same way, and
// ask the same question of who may act on whom.
func TestModerationFromChatAndAdminAgree(t *testing.T) {
	opsKey, ops2Key, moKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(opsKey.PublicKey()): true, gossh.FingerprintSHA256(ops2Key.PublicKey()): true}
	h := start(t, t.TempDir(), server.DefaultConfig(), admins)
	for _, p := range []struct {
		name string
		key  gossh.Signer
	}{{"ops2", ops2Key}, {"mo", moKey}, {"carol", sshtest.NewKey(t)}} {
		sshtest.Run(t, h.Addr, p.name, p.key, "whoami") // known, then offline
	}
	if r := sshtest.Run(t, h.Addr, "ops", opsKey, "admin promote mo moderator"); r.Code != 0 {
		t.Fatalf("promote: %+v", r)
	}

	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")
	ops := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ops", opsKey)), 100, 40, "")
	ops.WaitFor(wait, "Welcome, ops!")
	ops.Type("t")
	ops.Type("/mute bob 1D12H spam\r")
	ops.WaitFor(wait, "bob is muted for 1d12h")
	bob.WaitFor(wait, "you are muted for 1d12h: spam")

	r := sshtest.Run(t, h.Addr, "ops", opsKey, "admin mute carol 1D12H flood")
	if r.Code != 0 || !strings.Contains(r.Stdout, "muted carol for 1d12h") {
		t.Fatalf("admin mute carol 1D12H: %+v", r)
	}
	r = sshtest.Run(t, h.Addr, "ops", opsKey, "admin audit --json")
	var audit []struct {
		Action, Target string
		Seconds        float64 `json:"duration_seconds"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &audit); err != nil {
		t.Fatal(err)
	}
	secs := map[string]float64{}
	for _, e := range audit {
		if e.Action == "mute" {
			secs[e.Target] = e.Seconds
		}
	}
	if secs["bob"] != 36*3600 || secs["carol"] != 36*3600 {
		t.Fatalf("mute durations in the audit log: %v\n%s", secs, r.Stdout)
	}

	// One access decision: nobody acts on their own rank or above, whether
	// the target is online or not and whichever way they moderate.
	mo := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("mo", moKey)), 100, 40, "")
	mo.WaitFor(wait, "Welcome, mo!")
	mo.Type("t")
	mo.Type("/ban ops2 1d\r")
	mo.WaitFor(wait, "not allowed: ops2 is an admin")
	mo.Type("t")
	mo.Type("/mute ops 1h\r")
	mo.WaitFor(wait, "not allowed: ops is an admin")
	r = sshtest.Run(t, h.Addr, "ops", opsKey, "admin mute ops2 1h")
	if r.Code != 77 || !strings.Contains(r.Stderr, "not allowed: ops2 is an admin") {
		t.Fatalf("an admin muting another admin's key: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "ops", opsKey, "admin mute mo 1h"); r.Code != 0 {
		t.Fatalf("an admin muting a moderator: %+v", r)
	}
	mo.WaitFor(wait, "you are muted for 1h")
}

// TestModeratorPromotedWhileOnlineModeratesAtOnce: carol is promoted while
// her lobby is open; her next /mute works without reconnecting, and a
// demotion takes it away again as promptly.
func TestModeratorPromotedWhileOnlineModeratesAtOnce(t *testing.T) {
	adminKey := sshtest.NewKey(t)
	h := start(t, t.TempDir(), server.DefaultConfig(), map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true})
	bob := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("bob", sshtest.NewKey(t))), 100, 40, "")
	bob.WaitFor(wait, "Welcome, bob!")
	carol := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("carol", sshtest.NewKey(t))), 100, 40, "")
	carol.WaitFor(wait, "Welcome, carol!")
	carol.Type("t")
	carol.Type("/mute bob 5m spam\r")
	carol.WaitFor(wait, "/mute is for moderators")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin promote carol moderator"); r.Code != 0 {
		t.Fatalf("admin promote: %d %s", r.Code, r.Stderr)
	}
	carol.Type("t")
	carol.Type("/mute bob 5m spam\r")
	carol.WaitFor(wait, "bob is muted")
	bob.WaitFor(wait, "you are muted for")

	if r := sshtest.Run(t, h.Addr, "ops", adminKey, "admin demote carol"); r.Code != 0 {
		t.Fatalf("admin demote: %d %s", r.Code, r.Stderr)
	}
	carol.Type("t")
	carol.Type("/unmute bob\r")
	if scr := carol.WaitFor(wait, "/unmute is for moderators"); strings.Contains(scr, "bob is no longer muted") {
		t.Fatalf("a demoted moderator still moderates:\n%s", scr)
	}
}
