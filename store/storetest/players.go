package storetest

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

// Sixteen first logins that all ask for one name, split between two
// handles on one store: exactly one gets it, the rest get names of their
// own, and no name is held twice.
func testNameRace(t *testing.T, b Backend) {
	a, _ := open(t, b)
	h := a
	if !b.Exclusive {
		h = b.Again(t, a)
	}
	const n = 16
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		s := a
		if i%2 == 1 {
			s = h
		}
		wg.Go(func() {
			p, created, err := s.Login(bg, fp(fmt.Sprintf("key%02d", i)), "ssh-ed25519", "alice")
			if err != nil || !created {
				t.Errorf("login %d: created %v, %v", i, created, err)
			}
			names[i] = p.Name
		})
	}
	wg.Wait()
	if !slices.Contains(names, "alice") {
		t.Errorf("nobody got the name asked for: %v", names)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != n {
		t.Errorf("a name was handed out twice: %v", names)
	}
	for i, name := range names {
		if p, err := a.PlayerByName(bg, name); err != nil || p.Fingerprint != fp(fmt.Sprintf("key%02d", i)) {
			t.Errorf("PlayerByName(%s) = %+v, %v; want key%02d", name, p, err, i)
		}
	}
}

// Two players renaming to one free name at once: one gets it, the other
// is told it is taken.
func testRenameRace(t *testing.T, b Backend) {
	s, _ := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, who := range []string{"ann", "bob"} {
		wg.Go(func() { _, errs[i] = s.Rename(bg, fp(who), "zed", 0) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrNameTaken):
			t.Errorf("the loser's error %v does not match ErrNameTaken", err)
		}
	}
	if won != 1 {
		t.Fatalf("renames to one name: %v; want exactly one to win", errs)
	}
	p := must[store.Player](t)(s.PlayerByName(bg, "zed"))
	if p.Fingerprint != fp("ann") && p.Fingerprint != fp("bob") {
		t.Errorf("zed is %+v", p)
	}
}

// Names: case-insensitive lookups, the rules, renames freeing the old
// name and their interval, and the sentinel errors.
func testNames(t *testing.T, b Backend) {
	s, c := open(t, b)
	ann := login(t, s, "ann")
	if again, created, err := s.Login(bg, fp("ann"), "ssh-ed25519", "other"); err != nil || created || again.Name != "ann" {
		t.Errorf("a returning login = %+v, created %v, %v; want ann as she was", again, created, err)
	}
	if p, err := s.PlayerByName(bg, "ANN"); err != nil || p.Fingerprint != ann.Fingerprint {
		t.Errorf("PlayerByName(ANN) = %+v, %v", p, err)
	}
	for _, name := range []string{"nobody", "", string(make([]byte, 500))} {
		if _, err := s.PlayerByName(bg, name); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("PlayerByName(%.10q) = %v; want ErrNotFound", name, err)
		}
	}
	if _, err := s.PlayerByFingerprint(bg, fp("nobody")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PlayerByFingerprint(unknown) = %v; want ErrNotFound", err)
	}
	if _, err := s.Profile(bg, fp("nobody")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Profile(unknown) = %v; want ErrNotFound", err)
	}
	root, _, err := s.Login(bg, fp("root"), "ssh-ed25519", "root")
	if err != nil || root.Name == "root" || store.ValidateName(root.Name) != nil {
		t.Errorf("a login as root got %q, %v; want a name of its own", root.Name, err)
	}
	login(t, s, "bob")
	if _, err := s.Rename(bg, fp("ann"), "BOB", 0); !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("rename to a held name: %v; want ErrNameTaken", err)
	}
	if _, err := s.Rename(bg, fp("ann"), "-x", 0); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("rename to -x: %v; want ErrInvalidName", err)
	}
	if _, err := s.Rename(bg, fp("nobody"), "free", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rename of an unknown key: %v; want ErrNotFound", err)
	}
	if p, err := s.Rename(bg, fp("ann"), "Anna", time.Hour); err != nil || p.Name != "anna" {
		t.Fatalf("rename to Anna = %+v, %v", p, err)
	}
	var soon *store.RenameTooSoonError
	if _, err := s.Rename(bg, fp("ann"), "annie", time.Hour); !errors.As(err, &soon) || !soon.Next.Equal(c.now().Add(time.Hour)) {
		t.Errorf("a second rename within the hour: %v; want RenameTooSoonError at %v", err, c.now().Add(time.Hour))
	}
	c.add(time.Hour)
	must[store.Player](t)(s.Rename(bg, fp("ann"), "annie", time.Hour))
	if _, err := s.PlayerByName(bg, "ann"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the old name still finds someone: %v", err)
	}
	must[store.Player](t)(s.Rename(bg, fp("bob"), "ann", 0)) // freed, so free to take
	if got := must[int](t)(s.CountPlayers(bg)); got != 3 {
		t.Errorf("CountPlayers = %d, want 3", got)
	}
	log := must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 10))
	if len(log) != 3 || log[0].Action != store.ActionRename || log[0].TargetID != fp("bob") {
		t.Errorf("audit after three renames: %+v", log)
	}
}

// A ban refuses its key (and its range) until it expires or is lifted;
// expired and lifted bans stay as history.
func testBans(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	ip := net.ParseIP("203.0.113.7")
	ban := must[store.Ban](t)(s.AddBan(bg, store.Ban{Fingerprint: fp("ann"), CIDR: "203.0.113.0/24", Reason: "spam",
		Actor: "root", Expires: c.now().Add(time.Hour)}))
	if ban.ID == 0 || ban.Name != "ann" || ban.CIDR != "203.0.113.0/24" || !ban.Created.Equal(c.now()) {
		t.Errorf("AddBan returned %+v", ban)
	}
	for _, tc := range []struct {
		fp string
		ip net.IP
	}{{fp("ann"), nil}, {"", ip}, {fp("someone"), ip}} {
		if got, ok, err := s.ActiveBan(bg, tc.fp, tc.ip); err != nil || !ok || got.ID != ban.ID {
			t.Errorf("ActiveBan(%q, %v) = %+v, %v, %v; want the ban", tc.fp, tc.ip, got, ok, err)
		}
	}
	if _, ok, err := s.ActiveBan(bg, fp("someone"), net.ParseIP("198.51.100.1")); err != nil || ok {
		t.Errorf("another key from another range is banned: %v, %v", ok, err)
	}
	c.add(time.Hour)
	if _, ok, err := s.ActiveBan(bg, fp("ann"), ip); err != nil || ok {
		t.Errorf("an expired ban still applies: %v, %v", ok, err)
	}
	if active := must[[]store.Ban](t)(s.Bans(bg, false)); len(active) != 0 {
		t.Errorf("Bans(active) lists an expired ban: %+v", active)
	}
	perm := must[store.Ban](t)(s.AddBan(bg, store.Ban{Fingerprint: fp("ann"), Actor: "root"}))
	c.add(365 * 24 * time.Hour)
	if got, ok, _ := s.ActiveBan(bg, fp("ann"), nil); !ok || got.ID != perm.ID {
		t.Errorf("a permanent ban a year on: %+v, %v", got, ok)
	}
	if n, err := s.RemoveBan(bg, "ann", store.By{Actor: "root", Reason: "appeal"}); err != nil || n != 1 {
		t.Errorf("RemoveBan(ann) = %d, %v; want 1 lifted", n, err)
	}
	if _, ok, _ := s.ActiveBan(bg, fp("ann"), nil); ok {
		t.Error("a lifted ban still applies")
	}
	if n, err := s.RemoveBan(bg, fp("ann"), store.By{Actor: "root"}); err != nil || n != 0 {
		t.Errorf("lifting again = %d, %v; want 0", n, err)
	}
	if _, err := s.RemoveBan(bg, "nobody", store.By{Actor: "root"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RemoveBan(unknown name) = %v; want ErrNotFound", err)
	}
	all := must[[]store.Ban](t)(s.Bans(bg, true))
	if len(all) != 2 || all[0].ID != perm.ID || all[0].Lifted.IsZero() || all[0].LiftedBy != "root" || all[1].ID != ban.ID {
		t.Errorf("Bans(all) = %+v; want the lifted one, then the expired one", all)
	}
	if _, err := s.AddBan(bg, store.Ban{Fingerprint: fp("ann")}); err == nil {
		t.Error("a ban without an actor was stored")
	}
	if _, err := s.AddBan(bg, store.Ban{Fingerprint: fp("ann"), Actor: "root", Expires: c.now().Add(-time.Minute)}); err == nil {
		t.Error("a ban that expired before it was made was stored")
	}
}

// A mute silences until it expires or is lifted; only lifting an active
// one is audited.
func testMutes(t *testing.T, b Backend) {
	s, c := open(t, b)
	login(t, s, "ann")
	if err := s.SetMute(bg, store.Mute{Fingerprint: fp("ann"), Actor: "flood", Auto: true, Expires: c.now().Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if m, ok, err := s.ActiveMute(bg, fp("ann")); err != nil || !ok || m.Name != "ann" || !m.Auto {
		t.Errorf("ActiveMute = %+v, %v, %v", m, ok, err)
	}
	c.add(10 * time.Minute)
	if _, ok, err := s.ActiveMute(bg, fp("ann")); err != nil || ok {
		t.Errorf("an expired mute still applies: %v, %v", ok, err)
	}
	if ms := must[[]store.Mute](t)(s.Mutes(bg)); len(ms) != 0 {
		t.Errorf("Mutes lists an expired mute: %+v", ms)
	}
	if lifted, err := s.RemoveMute(bg, fp("ann"), store.By{Actor: "root"}); err != nil || lifted {
		t.Errorf("removing an expired mute = %v, %v; want not lifted", lifted, err)
	}
	must[struct{}](t)(struct{}{}, s.SetMute(bg, store.Mute{Fingerprint: fp("ann"), Actor: "root"}))
	if lifted, err := s.RemoveMute(bg, fp("ann"), store.By{Actor: "root", Reason: "sorry"}); err != nil || !lifted {
		t.Errorf("lifting a mute = %v, %v", lifted, err)
	}
	if _, ok, _ := s.ActiveMute(bg, fp("ann")); ok {
		t.Error("a lifted mute still applies")
	}
	var actions []string
	for _, e := range must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 10)) {
		actions = append(actions, e.Action)
	}
	if want := []string{store.ActionUnmute, store.ActionMute, store.ActionMute}; !slices.Equal(actions, want) {
		t.Errorf("audit = %v, want %v", actions, want)
	}
}

// Roles: promote and demote with their audit entries, the moderators
// listed, an unknown key refused.
func testRoles(t *testing.T, b Backend) {
	s, _ := open(t, b)
	login(t, s, "ann")
	login(t, s, "bob")
	if p, err := s.SetRole(bg, fp("bob"), store.RoleModerator, store.By{Actor: "root"}); err != nil || p.Role != store.RoleModerator {
		t.Fatalf("SetRole = %+v, %v", p, err)
	}
	must[store.Player](t)(s.SetRole(bg, fp("bob"), store.RoleModerator, store.By{Actor: "root"})) // no change, no entry
	if mods := must[[]store.Player](t)(s.Moderators(bg)); len(mods) != 1 || mods[0].Name != "bob" {
		t.Errorf("Moderators = %+v", mods)
	}
	must[store.Player](t)(s.SetRole(bg, fp("bob"), "", store.By{Actor: "root"}))
	if mods := must[[]store.Player](t)(s.Moderators(bg)); len(mods) != 0 {
		t.Errorf("Moderators after demoting = %+v", mods)
	}
	if _, err := s.SetRole(bg, fp("nobody"), store.RoleModerator, store.By{Actor: "root"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetRole(unknown) = %v; want ErrNotFound", err)
	}
	var actions []string
	for _, e := range must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 10)) {
		actions = append(actions, e.Action)
	}
	if want := []string{store.ActionDemote, store.ActionPromote}; !slices.Equal(actions, want) {
		t.Errorf("audit = %v, want %v", actions, want)
	}
}

// The audit log only grows: every entry keeps its id, time and text as
// more are written, ids rise in the order written, the log reads newest
// first, and since and limit cut it.
func testAudit(t *testing.T, b Backend) {
	s, c := open(t, b)
	var times []time.Time
	for i := range 5 {
		if err := s.Audit(bg, store.AuditEntry{Actor: "root", Action: store.ActionWarn, Target: fmt.Sprintf("p%d", i),
			Reason: fmt.Sprint("warning ", i)}); err != nil {
			t.Fatal(err)
		}
		times = append(times, c.now())
		c.add(time.Minute)
	}
	first := must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 100))
	if len(first) != 5 {
		t.Fatalf("%d entries, want 5", len(first))
	}
	for i, e := range first {
		want := 4 - i
		if e.Target != fmt.Sprintf("p%d", want) || !e.Time.Equal(times[want]) || (i > 0 && e.ID >= first[i-1].ID) {
			t.Errorf("entry %d = %+v; want p%d at %v, ids falling", i, e, want, times[want])
		}
	}
	must[struct{}](t)(struct{}{}, s.Audit(bg, store.AuditEntry{Actor: "root", Action: store.ActionAnnounce, Reason: "hello"}))
	after := must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 100))
	if len(after) != 6 || after[0].Action != store.ActionAnnounce || !slices.Equal(after[1:], first) {
		t.Errorf("appending changed what was there:\nbefore %+v\nafter  %+v", first, after)
	}
	if got := must[[]store.AuditEntry](t)(s.AuditLog(bg, times[3], 100)); len(got) != 3 || got[2].Target != "p3" {
		t.Errorf("AuditLog(since p3's time) = %+v; want p3, p4 and the announcement", got)
	}
	if got := must[[]store.AuditEntry](t)(s.AuditLog(bg, time.Time{}, 2)); len(got) != 2 || got[1].ID != first[0].ID {
		t.Errorf("AuditLog(limit 2) = %+v", got)
	}
	if err := s.Audit(bg, store.AuditEntry{Action: store.ActionWarn}); err == nil {
		t.Error("an entry without an actor was written")
	}
}
