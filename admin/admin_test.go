package admin

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

func TestFingerprintConstants(t *testing.T) {
	for name, want := range map[string]string{"alice": fpAlice, "bob": fpBob, "carol": fpCarol, "dave": fpDave} {
		if got := fp(name); got != want || !validFingerprint(got) {
			t.Errorf("fp(%s) = %s, want %s (valid %v)", name, got, want, validFingerprint(got))
		}
	}
}

func TestNonAdminDenied(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "203.0.113.7:5000")
	if _, err := e.st.SetRole(context.Background(), fpCarol, store.RoleModerator, store.By{Actor: "alice"}); err != nil {
		t.Fatal(err)
	}
	auditBefore := len(e.auditLog())
	callers := map[string]Caller{
		"player":    {ID: fpBob, Name: "bob"},
		"moderator": {ID: fpCarol, Name: "carol"},
		"guest":     {ID: "guest:0011223344556677", Name: "guest-1a2b"},
	}
	var argLists [][]string
	for _, c := range commands() {
		argLists = append(argLists, []string{c.name})
	}
	argLists = append(argLists,
		nil, []string{"bogus"}, []string{"--json"},
		[]string{"ban", "bob", "1d", "spam"}, []string{"bans", "--all", "--json"},
		[]string{"ban", "bob", "0s"}, []string{"promote", "carol", "moderator"}, []string{"backup"},
		[]string{"announce", "hello"}, []string{"kick", "bob"})
	for who, c := range callers {
		for _, args := range argLists {
			r := e.runAs(c, args...)
			if r.code != ExitDenied || r.out != "" || !strings.Contains(r.errOut, "not allowed") {
				t.Errorf("%s: admin %q = exit %d, stdout %q, stderr %q; want 77, nothing on stdout", who, args, r.code, r.out, r.errOut)
			}
			if strings.Contains(r.errOut, "usage") {
				t.Errorf("%s: admin %q told a non-admin the usage: %q", who, args, r.errOut)
			}
		}
	}
	if n := len(e.auditLog()); n != auditBefore {
		t.Errorf("denied commands wrote %d audit entries", n-auditBefore)
	}
	if e.live.calls != 0 {
		t.Errorf("denied commands touched live sessions %d times", e.live.calls)
	}
	if _, banned, _ := e.st.ActiveBan(context.Background(), fpBob, nil); banned {
		t.Error("a denied ban was stored")
	}
}

func TestHelpAndUsage(t *testing.T) {
	e := newEnv(t)
	r := e.expect(ExitOK, "help")
	for _, c := range commands() {
		if !strings.Contains(r.out, "  "+c.name) {
			t.Errorf("help does not list %s:\n%s", c.name, r.out)
		}
	}
	if r := e.expect(ExitUsage); !strings.Contains(r.errOut, "usage:") || r.out != "" {
		t.Errorf("bare admin: stdout %q, stderr %q; want usage on stderr", r.out, r.errOut)
	}
	if r := e.expect(ExitFail, "stats"); !strings.Contains(r.errOut, "keeps no telemetry") {
		t.Errorf("admin stats without telemetry: %q", r.errOut)
	}
	e.expect(ExitUsage, "help", "me")
	// Help lines are aligned: every summary starts in the same column.
	col := -1
	for _, line := range strings.Split(r.out, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue
		}
		i := strings.Index(line[2:], "  ")
		rest := strings.TrimLeft(line[2+i:], " ")
		c := len([]rune(line)) - len([]rune(rest))
		if col == -1 {
			col = c
		} else if c != col {
			t.Errorf("help line %q: summary at column %d, want %d", line, c, col)
		}
	}
}

func TestBanOnlinePlayerKicksWithReasonAndExpiry(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "198.51.100.20:40000")
	e.online("bob", fpBob, "198.51.100.20:40001")
	e.online("carol", fpCarol, "192.0.2.1:1")
	out := e.must("ban", "bob", "24h", "spamming", "links")

	want := "you are banned until 2025-03-02 12:00 UTC: spamming links"
	if len(e.live.kicks) != 1 || e.live.kicks[0] != (sent{fpBob, want}) {
		t.Errorf("kicks = %+v, want one of bob with %q", e.live.kicks, want)
	}
	for _, s := range []string{"banned bob for 1d, until 2025-03-02 12:00 UTC", "reason: spamming links", "kicked 2 sessions"} {
		if !strings.Contains(out, s) {
			t.Errorf("output %q lacks %q", out, s)
		}
	}
	b, ok, err := e.st.ActiveBan(context.Background(), fpBob, nil)
	if err != nil || !ok {
		t.Fatalf("ActiveBan = %v, %v", ok, err)
	}
	if b.Reason != "spamming links" || b.Actor != "alice" || b.Expires != e.clock.Now().Add(24*time.Hour) || b.Name != "bob" {
		t.Errorf("stored ban = %+v", b)
	}
	log := e.auditLog()
	if len(log) != 1 || log[0].Action != store.ActionBan || log[0].Actor != "alice" || log[0].Target != "bob" || log[0].Duration != 24*time.Hour {
		t.Errorf("audit = %+v", log)
	}

	// Permanent, with no reason, and by fingerprint.
	e.must("ban", fpCarol)
	if k := e.live.kicks[len(e.live.kicks)-1]; k != (sent{fpCarol, "you are banned permanently"}) {
		t.Errorf("permanent ban kick = %+v", k)
	}
}

func TestBanWithRange(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "203.0.113.7:5000")
	e.online("guest-1a2b", "guest:aa", "203.0.113.99:6000")
	e.online("alice", fpAlice, "203.0.113.5:7000") // the admin, in the same range
	e.online("carol", fpCarol, "[2001:db8::1]:22")
	out := e.must("ban", "bob", "permanent", "3", "strikes", "--ip", "203.0.113.7/24")

	kicked := map[string]bool{}
	for _, k := range e.live.kicks {
		kicked[k.fp] = true
		if k.text != "you are banned permanently: 3 strikes" {
			t.Errorf("kick text %q", k.text)
		}
	}
	if !kicked[fpBob] || !kicked["guest:aa"] || kicked[fpAlice] || kicked[fpCarol] {
		t.Errorf("kicked %v; want bob and the guest from the range, not the admin or carol", kicked)
	}
	if !strings.Contains(out, "203.0.113.0/24") || !strings.Contains(out, "kicked 2 sessions") {
		t.Errorf("output %q", out)
	}
	if b, ok, _ := e.st.ActiveBan(context.Background(), "", net.ParseIP("203.0.113.200")); !ok || b.Fingerprint != fpBob || b.Reason != "3 strikes" {
		t.Errorf("range ban = %+v, %v", b, ok)
	}
}

func TestBanSurvivesReopen(t *testing.T) {
	e := newEnv(t)
	e.must("ban", "bob", "7d", "cheating")
	e.reopen()
	if b, ok, err := e.st.ActiveBan(context.Background(), fpBob, nil); err != nil || !ok || b.Reason != "cheating" {
		t.Errorf("after reopen ActiveBan = %+v, %v, %v", b, ok, err)
	}
	var bans []banJSON
	if err := json.Unmarshal([]byte(e.must("bans", "--json")), &bans); err != nil {
		t.Fatal(err)
	}
	if len(bans) != 1 || bans[0].Name != "bob" || bans[0].Status != "active" || *bans[0].Expires != "2025-03-08T12:00:00Z" {
		t.Errorf("bans after reopen = %+v", bans)
	}
}

func TestBanUsageErrors(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"ban"},
		{"ban", "bob", "0s"},
		{"ban", "bob", "0d", "spam"},
		{"ban", "bob", "-5m"},
		{"ban", "bob", "10x"},
		{"ban", "bob", "5"},
		{"ban", "bob", "1.5h"},
		{"ban", "bob", "99999d"},
		{"ban", "bob", "999999999999999999999w"},
		{"ban", "bob", "1d", "--ip"},
		{"ban", "bob", "--ip", "not-an-ip"},
		{"ban", "bob", "--ip", "10.0.0.0/8"},
		{"ban", "bob", "--ip", "2001:db8::/16"},
		{"ban", "bob", "--force"},
		{"mute", "bob", "0m"},
		{"mute", "bob", "permanent"},
		{"mute", "bob", "4000d"},
		{"mute"},
		{"unban"},
		{"unmute"},
		{"kick"},
		{"warn", "bob"},
		{"warn", "bob", "\x1b\x07"}, // nothing left once sanitised
		{"announce"},
		{"promote", "bob"},
		{"promote", "bob", "admin"},
		{"demote"},
		{"demote", "bob", "carol"},
		{"bans", "extra"},
		{"bans", "--full"},
		{"mutes", "x"},
		{"audit", "--since", "yesterday"},
		{"audit", "--since", "0s"},
		{"audit", "--limit", "0"},
		{"audit", "--limit", "1001"},
		{"sessions", "x"},
		{"rooms", "--all"},
		{"backup", "file.db"},
	} {
		r := e.expect(ExitUsage, args...)
		if !strings.Contains(r.errOut, "usage: admin "+args[0]) || r.out != "" {
			t.Errorf("admin %q: stdout %q, stderr %q; want this command's usage on stderr", args, r.out, r.errOut)
		}
	}
	if bans, _ := e.st.Bans(context.Background(), true); len(bans) != 0 {
		t.Errorf("usage errors stored bans: %+v", bans)
	}
	if log := e.auditLog(); len(log) != 0 {
		t.Errorf("usage errors were audited: %+v", log)
	}
}

func TestUnknownPlayer(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"ban", "nobody", "1d"},
		{"ban", "SHA256:short"},
		{"unban", "nobody"},
		{"mute", "nobody"},
		{"mute", fpDave}, // a mute needs a known player
		{"unmute", "nobody"},
		{"kick", "nobody"},
		{"warn", "nobody", "behave"},
		{"promote", "nobody", "moderator"},
		{"promote", fpDave, "moderator"},
		{"demote", "nobody"},
	} {
		r := e.expect(ExitFail, args...)
		if !strings.Contains(r.errOut, "no player") {
			t.Errorf("admin %q: stderr %q", args, r.errOut)
		}
	}
	// A key nobody has used yet can still be banned, ahead of its first login.
	e.must("ban", fpDave, "1d")
	if _, ok, _ := e.st.ActiveBan(context.Background(), fpDave, nil); !ok {
		t.Error("ban of a not-yet-seen key was not stored")
	}
	e.must("unban", fpDave)
}

func TestBanSelfRefused(t *testing.T) {
	e := newEnv(t)
	e.expect(ExitFail, "ban", "alice")
	if _, ok, _ := e.st.ActiveBan(context.Background(), fpAlice, nil); ok {
		t.Error("the admin banned themself")
	}
}

func TestUnban(t *testing.T) {
	e := newEnv(t)
	e.must("ban", "bob", "1h")
	e.must("ban", "bob", "2d")
	if out := e.must("unban", "Bob", "appeal", "accepted"); !strings.Contains(out, "lifted 2 bans of bob") {
		t.Errorf("unban output %q", out)
	}
	if _, ok, _ := e.st.ActiveBan(context.Background(), fpBob, nil); ok {
		t.Error("bob still banned")
	}
	// Nothing to lift says so and fails: the wrong name in a script shows.
	if r := e.expect(ExitFail, "unban", fpBob); !strings.Contains(r.errOut, "bob has no active ban") {
		t.Errorf("second unban: %+v", r)
	}
	log := e.auditLog()
	if len(log) != 3 || log[0].Action != store.ActionUnban || log[0].Reason != "appeal accepted" || log[0].Actor != "alice" {
		t.Errorf("audit = %+v", log)
	}
}

func TestMuteAndUnmute(t *testing.T) {
	e := newEnv(t)
	now := e.clock.Now()
	out := e.must("mute", "bob")
	if !strings.Contains(out, "muted bob for 10m, until 2025-03-01 12:10 UTC") {
		t.Errorf("mute output %q", out)
	}
	if len(e.live.mutes) != 1 || e.live.mutes[0] != (muteCall{fpBob, now.Add(10 * time.Minute), ""}) {
		t.Errorf("live mutes = %+v", e.live.mutes)
	}
	e.clock.Advance(time.Second)
	e.must("mute", "carol", "2h", "flooding", "chat")
	if m, ok, _ := e.st.ActiveMute(context.Background(), fpCarol); !ok || m.Reason != "flooding chat" || m.Expires != now.Add(2*time.Hour+time.Second) || m.Actor != "alice" {
		t.Errorf("carol's mute = %+v, %v", m, ok)
	}

	table := e.must("mutes")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "PLAYER") ||
		!strings.HasPrefix(lines[1], "carol") || !strings.Contains(lines[1], "flooding chat") {
		t.Errorf("mutes table:\n%s", table)
	}
	var mutes []muteJSON
	if err := json.Unmarshal([]byte(e.must("mutes", "--json")), &mutes); err != nil {
		t.Fatal(err)
	}
	if len(mutes) != 2 || mutes[1].Name != "bob" || mutes[1].Expires == nil || *mutes[1].Expires != "2025-03-01T12:10:00Z" {
		t.Errorf("mutes --json = %+v", mutes)
	}

	if out := e.must("unmute", "bob"); !strings.Contains(out, "unmuted bob") {
		t.Errorf("unmute output %q", out)
	}
	if last := e.live.mutes[len(e.live.mutes)-1]; last != (muteCall{fp: fpBob}) {
		t.Errorf("unmute did not clear live chat: %+v", last)
	}
	if r := e.expect(ExitFail, "unmute", "bob"); !strings.Contains(r.errOut, "bob is not muted") {
		t.Errorf("second unmute: %+v", r)
	}
	e.clock.Advance(3 * time.Hour)
	if out := e.must("mutes"); !strings.Contains(out, "no active mutes") {
		t.Errorf("mutes after expiry %q", out)
	}
	got := []string{}
	for _, en := range e.auditLog() {
		got = append(got, en.Action+" "+en.Target)
	}
	if want := []string{"unmute bob", "mute carol", "mute bob"}; !reflect.DeepEqual(got, want) {
		t.Errorf("audit %q, want %q", got, want)
	}
}

func TestKick(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "192.0.2.1:1")
	e.online("guest-1a2b", "guest:0102", "192.0.2.2:1")
	if out := e.must("kick", "bob", "cool", "off"); !strings.Contains(out, "kicked bob (1 session)") {
		t.Errorf("kick output %q", out)
	}
	if e.live.kicks[0] != (sent{fpBob, "you were kicked by an admin: cool off"}) {
		t.Errorf("kick = %+v", e.live.kicks[0])
	}
	if r := e.expect(ExitFail, "kick", "bob"); !strings.Contains(r.errOut, "not online") {
		t.Errorf("kick offline: %q", r.errOut)
	}
	// Guests are only in the live list.
	e.must("kick", "GUEST-1a2b")
	if k := e.live.kicks[len(e.live.kicks)-1]; k.fp != "guest:0102" {
		t.Errorf("guest kick = %+v", k)
	}
	log := e.auditLog()
	if len(log) != 2 || log[0].Target != "guest-1a2b" || log[1].Action != store.ActionKick || log[1].Reason != "cool off" || log[1].TargetID != fpBob {
		t.Errorf("audit = %+v (a kick that reached nobody must not be logged)", log)
	}
}

func TestWarn(t *testing.T) {
	e := newEnv(t)
	if r := e.expect(ExitFail, "warn", "bob", "language"); !strings.Contains(r.errOut, "not online") {
		t.Errorf("warn offline: %q", r.errOut)
	}
	e.online("bob", fpBob, "192.0.2.1:1")
	if out := e.must("warn", "bob", "mind", "your", "language"); !strings.Contains(out, "warned bob") {
		t.Errorf("warn output %q", out)
	}
	if len(e.live.tells) != 2 || e.live.tells[1] != (sent{fpBob, "mind your language"}) {
		t.Errorf("tells = %+v", e.live.tells)
	}
	if log := e.auditLog(); len(log) != 1 || log[0].Action != store.ActionWarn || log[0].Reason != "mind your language" {
		t.Errorf("audit = %+v", log)
	}
}

func TestAnnounce(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "192.0.2.1:1")
	e.online("carol", fpCarol, "192.0.2.3:1")
	out := e.must("announce", "restart", "in", "5", "minutes\x1b[2J\u202e")
	if !strings.Contains(out, "announced to 2 sessions") {
		t.Errorf("announce output %q", out)
	}
	if len(e.live.announces) != 1 || e.live.announces[0] != "restart in 5 minutes[2J" {
		t.Errorf("announces = %q", e.live.announces)
	}
	if log := e.auditLog(); len(log) != 1 || log[0].Action != store.ActionAnnounce || log[0].Reason != "restart in 5 minutes[2J" || log[0].Target != "" {
		t.Errorf("audit = %+v", log)
	}
}

func TestPromoteDemote(t *testing.T) {
	e := newEnv(t)
	checks := []struct {
		args []string
		out  string
		role string
	}{
		{[]string{"promote", "bob", "moderator"}, "bob is now a moderator", store.RoleModerator},
		{[]string{"promote", "Bob", "Moderator"}, "bob is already a moderator", store.RoleModerator},
		{[]string{"demote", fpBob}, "bob is no longer a moderator", ""},
		{[]string{"demote", "bob"}, "bob is not a moderator", ""},
	}
	for _, c := range checks {
		if out := e.must(c.args...); !strings.Contains(out, c.out) {
			t.Errorf("admin %q = %q, want %q", c.args, out, c.out)
		}
		if p, _ := e.st.PlayerByFingerprint(context.Background(), fpBob); p.Role != c.role {
			t.Errorf("after %q role = %q, want %q", c.args, p.Role, c.role)
		}
	}
	e.must("promote", "carol", "moderator")
	if mods, _ := e.st.Moderators(context.Background()); len(mods) != 1 || mods[0].Name != "carol" {
		t.Errorf("moderators = %+v", mods)
	}
	got := []string{}
	for _, en := range e.auditLog() {
		got = append(got, en.Actor+" "+en.Action+" "+en.Target)
	}
	if want := []string{"alice promote carol", "alice demote bob", "alice promote bob"}; !reflect.DeepEqual(got, want) {
		t.Errorf("audit %q, want %q", got, want)
	}
}

func TestAuditJSONNewestFirst(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "198.51.100.1:1")
	steps := [][]string{
		{"warn", "bob", "first"},
		{"mute", "bob", "5m", "second"},
		{"ban", "carol", "1d", "third", "--ip", "192.0.2.0/24"},
		{"announce", "fourth"},
		{"kick", "bob", "fifth"},
	}
	for _, s := range steps {
		e.must(s...)
		e.clock.Advance(time.Minute)
	}
	var log []auditJSON
	if err := json.Unmarshal([]byte(e.must("audit", "--json")), &log); err != nil {
		t.Fatal(err)
	}
	wantActions := []string{"kick", "announce", "ban", "mute", "warn"}
	if len(log) != len(wantActions) {
		t.Fatalf("audit --json has %d entries, want %d: %+v", len(log), len(wantActions), log)
	}
	for i, en := range log {
		if en.Action != wantActions[i] || en.Actor != "alice" || en.ID != uint64(len(log)-i) {
			t.Errorf("entry %d = %+v, want action %s by alice, id %d", i, en, wantActions[i], len(log)-i)
		}
	}
	ban := log[2]
	want := auditJSON{ID: 3, Time: "2025-03-01T12:02:00Z", Actor: "alice", Action: "ban", Target: "carol", TargetID: fpCarol,
		CIDR: "192.0.2.0/24", Reason: "third", Duration: 86400}
	if ban != want {
		t.Errorf("ban entry = %+v, want %+v", ban, want)
	}
	// The raw shape: every field present, even when empty.
	var raw []map[string]any
	if err := json.Unmarshal([]byte(e.must("audit", "--json")), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "time", "actor", "action", "target", "target_id", "cidr", "reason", "duration_seconds", "auto"} {
		if _, ok := raw[1][k]; !ok {
			t.Errorf("audit --json entry lacks %q: %v", k, raw[1])
		}
	}

	if err := json.Unmarshal([]byte(e.must("audit", "--json", "--limit", "2")), &log); err != nil || len(log) != 2 || log[0].Action != "kick" {
		t.Errorf("--limit 2 = %+v, %v", log, err)
	}
	// The clock is 5m past the first step; 150s reaches back to the 4th and 5th.
	if err := json.Unmarshal([]byte(e.must("audit", "--since", "150s", "--json")), &log); err != nil || len(log) != 2 || log[1].Action != "announce" {
		t.Errorf("--since 150s = %+v, %v", log, err)
	}
	table := e.must("audit")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[3], "carol + 192.0.2.0/24") || !strings.Contains(lines[3], "1d") {
		t.Errorf("audit table:\n%s", table)
	}
	if out := newEnv(t).must("audit"); !strings.Contains(out, "no audit entries") {
		t.Errorf("empty audit = %q", out)
	}
}

func TestBansListing(t *testing.T) {
	e := newEnv(t)
	if out := e.must("bans"); out != "no active bans\n" {
		t.Errorf("empty bans = %q", out)
	}
	if out := e.must("bans", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty bans --json = %q", out)
	}
	e.must("ban", "bob", "1h", "short")
	e.must("ban", "carol", "spam", "--ip", "198.51.100.7")
	e.must("ban", fpDave, "2d")
	e.must("unban", fpDave)
	e.clock.Advance(2 * time.Hour) // bob's expires

	table := e.must("bans")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "carol") || !strings.Contains(lines[1], "198.51.100.7/32") || !strings.Contains(lines[1], "never") {
		t.Errorf("bans table:\n%s", table)
	}
	checkAligned(t, table, "FINGERPRINT", "BY")

	var all []banJSON
	if err := json.Unmarshal([]byte(e.must("bans", "--all", "--json")), &all); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range all {
		got = append(got, b.Name+"/"+b.Fingerprint[:10]+"/"+b.Status)
	}
	want := []string{"/" + fpDave[:10] + "/lifted", "carol/" + fpCarol[:10] + "/active", "bob/" + fpBob[:10] + "/expired"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bans --all = %q, want %q", got, want)
	}
	if all[0].Lifted == nil || all[0].LiftedBy != "alice" || all[1].Expires != nil || all[1].CIDR != "198.51.100.7/32" {
		t.Errorf("bans --all --json = %+v", all)
	}
	allTable := e.must("bans", "--all")
	if !strings.Contains(allTable, "STATUS") || !strings.Contains(allTable, "lifted") || !strings.Contains(allTable, "expired") {
		t.Errorf("bans --all table:\n%s", allTable)
	}
	checkAligned(t, allTable, "STATUS", "EXPIRES", "BY")
}

func TestSessionsAndRooms(t *testing.T) {
	e := newEnv(t)
	if out := e.must("sessions"); out != "nobody is online\n" {
		t.Errorf("no sessions = %q", out)
	}
	if out := e.must("rooms", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("no rooms --json = %q", out)
	}
	e.online("carol", fpCarol, "[2001:db8::1]:2222")
	e.online("bob", fpBob, "192.0.2.1:1")
	e.online("guest-\x1b[31mred", "guest:0102", "192.0.2.2:1")
	e.live.rooms = []lobby.RoomInfo{
		{ID: "r9", Mode: "ffa4", Phase: game.Waiting, Players: []lobby.SeatInfo{{Name: "carol"}}},
		{ID: "r2", Mode: "1v1", Queue: "pong-1v1", Phase: game.Playing, Players: []lobby.SeatInfo{{Name: "alice"}, {Slot: 1, Name: "bob"}}, Ranked: true, Watchers: 3},
		{ID: "r5", Mode: "1v1", Phase: game.Waiting},
	}

	table := e.must("sessions")
	if strings.Contains(table, "\x1b") {
		t.Errorf("sessions table carries an escape: %q", table)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "bob ") || !strings.HasPrefix(lines[3], "guest-[31mred") || !strings.Contains(lines[3], "guest") ||
		!strings.Contains(lines[1], "5m") {
		t.Errorf("sessions table:\n%s", table)
	}
	checkAligned(t, table, "KIND", "ADDRESS", "ONLINE")
	var sessions []sessionJSON
	if err := json.Unmarshal([]byte(e.must("sessions", "--json")), &sessions); err != nil {
		t.Fatal(err)
	}
	wantBob := sessionJSON{Name: "bob", Fingerprint: fpBob, Addr: "192.0.2.1:1", Where: "lobby", Since: "2025-03-01T11:55:00Z", Online: 300}
	if len(sessions) != 3 || sessions[0] != wantBob || !sessions[2].Guest {
		t.Errorf("sessions --json = %+v", sessions)
	}

	table = e.must("rooms")
	lines = strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "r2") || !strings.Contains(lines[1], "alice, bob") || !strings.Contains(lines[1], "yes") {
		t.Errorf("rooms table:\n%s", table)
	}
	checkAligned(t, table, "MODE", "PHASE", "WATCHERS")
	var rooms []roomJSON
	if err := json.Unmarshal([]byte(e.must("rooms", "--json")), &rooms); err != nil {
		t.Fatal(err)
	}
	if len(rooms) != 3 || !reflect.DeepEqual(rooms[0], roomJSON{ID: "r2", Mode: "pong-1v1", Phase: "playing", Ranked: true, Players: []string{"alice", "bob"}, Watchers: 3}) ||
		rooms[1].Players == nil {
		t.Errorf("rooms --json = %+v", rooms)
	}
}

// checkAligned asserts that, on every line of a table, the named columns
// start at the byte offset where the header has them (tables hold ASCII
// here, so bytes are cells).
func checkAligned(t *testing.T, table string, columns ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	for _, col := range columns {
		at := strings.Index(lines[0], col)
		if at < 0 {
			t.Errorf("header %q has no %s", lines[0], col)
			continue
		}
		for _, l := range lines[1:] {
			if len(l) <= at || l[at-1] != ' ' || l[at] == ' ' || at >= 2 && l[at-2] != ' ' {
				t.Errorf("column %s not aligned at %d in %q", col, at, l)
			}
		}
	}
}

func TestSanitizesAttackerText(t *testing.T) {
	e := newEnv(t)
	e.online("bob", fpBob, "192.0.2.1:1")
	e.must("ban", "bob", "1d", "evil\x1b]0;owned\x07", "\u202egnp.exe", "\u009b31m")
	b, _, _ := e.st.ActiveBan(context.Background(), fpBob, nil)
	if b.Reason != "evil]0;owned gnp.exe 31m" {
		t.Errorf("stored reason %q", b.Reason)
	}
	if k := e.live.kicks[0].text; strings.ContainsAny(k, "\x1b\x07\u202e\u009b") {
		t.Errorf("kick message carries control characters: %q", k)
	}
	for _, out := range []string{e.must("bans"), e.must("audit")} {
		if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
			t.Errorf("listing carries control characters: %q", out)
		}
	}
	r := e.expect(ExitFail, "ban", "\x1b[2Jmallory")
	if strings.Contains(r.errOut, "\x1b") || !strings.Contains(r.errOut, "[2Jmallory") {
		t.Errorf("echoed name not sanitised: %q", r.errOut)
	}
	r = e.expect(ExitUsage, "ban", "bob", "--\x1b[2J")
	if strings.Contains(r.errOut, "\x1b") {
		t.Errorf("echoed flag not sanitised: %q", r.errOut)
	}
	e.online("bob", fpBob, "192.0.2.1:1") // the ban kicked them
	e.must("warn", "bob", strings.Repeat("x", 5000))
	if n := len(e.live.tells[0].text); n != maxReasonRunes {
		t.Errorf("warning of %d bytes sent, want it cut to %d", n, maxReasonRunes)
	}
}

func TestBackup(t *testing.T) {
	e := newEnv(t)
	e.must("ban", "bob", "1d")
	want := map[string]string{}
	for _, name := range []string{"alice", "bob", "carol"} {
		p, err := e.st.PlayerByName(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		want[p.Fingerprint] = p.Name
	}

	r := e.expect(ExitOK, "backup")
	if !strings.Contains(r.errOut, "bytes") {
		t.Errorf("backup stderr %q", r.errOut)
	}
	file := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(file, []byte(r.out), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("backup does not open as bbolt: %v", err)
	}
	got := map[string]string{}
	err = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("players"))
		if b == nil {
			t.Fatal("backup has no players bucket")
		}
		return b.ForEach(func(k, v []byte) error {
			var rec struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(v, &rec); err != nil {
				return err
			}
			got[string(k)] = rec.Name
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backup players = %v, want %v", got, want)
	}

	// It is a whole data file: the store opens it, bans included.
	restored, err := bolt.Open(file, bolt.Options{Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if _, ok, err := restored.ActiveBan(context.Background(), fpBob, nil); err != nil || !ok {
		t.Errorf("restored ban = %v, %v", ok, err)
	}

	if left, _ := os.ReadDir(e.tmp); len(left) != 0 {
		t.Errorf("spool files left behind: %v", left)
	}
	if log := e.auditLog(); log[0].Action != store.ActionBackup || log[0].Actor != "alice" {
		t.Errorf("backup not audited: %+v", log[0])
	}
}

// The moderation service asks the same question chat does: nobody acts on
// their own rank or above, nor on themselves; lifting a mute is open.
func TestModerationRespectsRanks(t *testing.T) {
	e := newEnv(t)
	e.admins = map[string]bool{fpCarol: true}
	e.must("promote", "bob", "moderator")
	for _, args := range [][]string{{"mute", "carol", "1h"}, {"ban", "carol"}, {"ban", fpCarol, "1d"}} {
		if r := e.expect(ExitDenied, args...); !strings.Contains(r.errOut, "not allowed: carol is an admin") {
			t.Errorf("admin %q: %q", args, r.errOut)
		}
	}
	if _, ok, _ := e.st.ActiveBan(context.Background(), fpCarol, nil); ok {
		t.Error("an admin's key was banned")
	}
	e.must("mute", "bob", "1h") // a moderator is below an admin
	e.must("unmute", "bob")
	if r := e.expect(ExitFail, "mute", "alice"); !strings.Contains(r.errOut, "your own key") {
		t.Errorf("self-mute: %q", r.errOut)
	}
}
