package bolt

import (
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

func mustBan(t *testing.T, s *Store, b store.Ban) store.Ban {
	t.Helper()
	got, err := s.AddBan(ctx, b)
	if err != nil {
		t.Fatalf("AddBan(%+v): %v", b, err)
	}
	return got
}

func mustAuditLog(t *testing.T, s *Store) []store.AuditEntry {
	t.Helper()
	log, err := s.AuditLog(ctx, time.Time{}, 1000)
	if err != nil {
		t.Fatalf("AuditLog: %v", err)
	}
	return log
}

func actions(log []store.AuditEntry) []string {
	out := make([]string, len(log))
	for i, e := range log {
		out[i] = e.Action + " " + e.Target
	}
	return out
}

func activeBan(t *testing.T, s *Store, fp, ip string) (store.Ban, bool) {
	t.Helper()
	b, ok, err := s.ActiveBan(ctx, fp, net.ParseIP(ip))
	if err != nil {
		t.Fatalf("ActiveBan(%q, %q): %v", fp, ip, err)
	}
	return b, ok
}

func TestBanSurvivesReopen(t *testing.T) {
	path := dbPath(t)
	clock := newClock()
	s, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	mustLogin(t, s, fpBob, "bob")
	created := clock.Now().In(time.FixedZone("CET", 3600))
	want := mustBan(t, s, store.Ban{Fingerprint: fpBob, Reason: "spam", Actor: "alice", Created: created, Expires: created.Add(24 * time.Hour)})
	if want.ID == 0 || want.Name != "bob" || want.Created != clock.Now() || want.Expires != clock.Now().Add(24*time.Hour) {
		t.Errorf("AddBan returned %+v: want an id, the name filled in and UTC times", want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, path, Options{Now: clock.Now})
	got, ok := activeBan(t, s, fpBob, "")
	if !ok || got != want {
		t.Errorf("after reopen ActiveBan = %+v, %v; want %+v", got, ok, want)
	}
	if bans, err := s.Bans(ctx, false); err != nil || len(bans) != 1 || bans[0] != want {
		t.Errorf("Bans(false) = %+v, %v", bans, err)
	}
	log := mustAuditLog(t, s)
	wantEntry := store.AuditEntry{ID: 1, Time: clock.Now(), Actor: "alice", Action: store.ActionBan, Target: "bob",
		TargetID: fpBob, Reason: "spam", Duration: 24 * time.Hour}
	if len(log) != 1 || log[0] != wantEntry {
		t.Errorf("audit log = %+v, want [%+v]", log, wantEntry)
	}
}

func TestBanExpires(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "alice", Expires: clock.Now().Add(time.Hour)})
	mustBan(t, s, store.Ban{Fingerprint: fpCarol, Actor: "alice"}) // permanent

	clock.Advance(time.Hour - time.Nanosecond)
	if _, ok := activeBan(t, s, fpBob, ""); !ok {
		t.Error("ban stopped applying before it expired")
	}
	clock.Advance(time.Nanosecond)
	if b, ok := activeBan(t, s, fpBob, ""); ok {
		t.Errorf("expired ban still applies: %+v", b)
	}
	clock.Advance(10 * 365 * 24 * time.Hour)
	if _, ok := activeBan(t, s, fpCarol, ""); !ok {
		t.Error("permanent ban stopped applying")
	}

	active, err := s.Bans(ctx, false)
	if err != nil || len(active) != 1 || active[0].Fingerprint != fpCarol {
		t.Errorf("Bans(false) = %+v, %v; want carol's only", active, err)
	}
	all, err := s.Bans(ctx, true)
	if err != nil || len(all) != 2 || all[0].Fingerprint != fpCarol || all[1].Fingerprint != fpBob {
		t.Errorf("Bans(true) = %+v, %v; want carol's then bob's (newest first)", all, err)
	}
}

func TestBanCIDR(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	mustBan(t, s, store.Ban{Fingerprint: fpBob, CIDR: "203.0.113.9/24", Actor: "alice", Reason: "ban evasion"})
	single := mustBan(t, s, store.Ban{Fingerprint: fpCarol, CIDR: "198.51.100.7", Actor: "alice"})
	mustBan(t, s, store.Ban{Fingerprint: "SHA256:dave", CIDR: "2001:db8:aa::/48", Actor: "alice"})
	if single.CIDR != "198.51.100.7/32" {
		t.Errorf("single address stored as %q, want 198.51.100.7/32", single.CIDR)
	}

	tests := []struct {
		fp, ip string
		want   string // fingerprint of the ban that applies; "" for none
	}{
		{fpAlice, "203.0.113.77", fpBob},
		{"", "203.0.113.1", fpBob}, // a guest from the range
		{fpAlice, "::ffff:203.0.113.77", fpBob},
		{fpAlice, "203.0.114.1", ""},
		{fpAlice, "198.51.100.7", fpCarol},
		{fpAlice, "198.51.100.8", ""},
		{fpAlice, "2001:db8:aa:1::5", "SHA256:dave"},
		{fpAlice, "2001:db8:ab::5", ""},
		{fpAlice, "", ""},
		{fpBob, "192.0.2.1", fpBob}, // the key is banned wherever it comes from
	}
	for _, tt := range tests {
		b, ok := activeBan(t, s, tt.fp, tt.ip)
		if got := map[bool]string{true: b.Fingerprint}[ok]; got != tt.want {
			t.Errorf("ActiveBan(%q, %s) = %q (%v), want %q", tt.fp, tt.ip, got, ok, tt.want)
		}
	}

	// A lifted range ban stops matching addresses.
	if n, err := s.RemoveBan(ctx, fpBob, store.By{Actor: "alice"}); err != nil || n != 1 {
		t.Fatalf("RemoveBan = %d, %v", n, err)
	}
	if b, ok := activeBan(t, s, "", "203.0.113.1"); ok {
		t.Errorf("lifted range ban still applies: %+v", b)
	}
}

func TestParseCIDR(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.9/24":      "203.0.113.0/24",
		"203.0.113.9":         "203.0.113.9/32",
		"::ffff:203.0.113.9":  "203.0.113.9/32",
		"::ffff:10.1.2.3/104": "10.0.0.0/8",
		"2001:db8::1/48":      "2001:db8::/48",
		"fe80::1%eth0":        "fe80::1/128",
	} {
		p, err := store.ParseCIDR(in)
		if err != nil || p.String() != want {
			t.Errorf("ParseCIDR(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "bob", "203.0.113.0/33", "203.0.113/24", "::ffff:1.2.3.4/64", strings.Repeat("1", 100)} {
		if p, err := store.ParseCIDR(bad); err == nil {
			t.Errorf("ParseCIDR(%q) = %v, want an error", bad, p)
		}
	}
}

func TestActiveBanPicksLongest(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	now := clock.Now()
	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "a", Expires: now.Add(time.Hour)})
	long := mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "a", Expires: now.Add(48 * time.Hour)})
	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "a", Expires: now.Add(2 * time.Hour)})
	if b, _ := activeBan(t, s, fpBob, ""); b.ID != long.ID {
		t.Errorf("ActiveBan = ban %d, want the longest, %d", b.ID, long.ID)
	}
	perm := mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "a", CIDR: "192.0.2.0/24"})
	if b, _ := activeBan(t, s, fpBob, "192.0.2.1"); b.ID != perm.ID {
		t.Errorf("ActiveBan = ban %d, want the permanent one, %d", b.ID, perm.ID)
	}
}

func TestRemoveBan(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	mustLogin(t, s, fpBob, "bob")
	mustLogin(t, s, fpCarol, "carol")
	now := clock.Now()
	expired := mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "alice", Expires: now.Add(time.Minute)})
	clock.Advance(time.Hour)
	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "alice", Reason: "spam"})
	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "alice", Expires: now.Add(48 * time.Hour)})
	mustBan(t, s, store.Ban{Fingerprint: fpCarol, Actor: "alice"})

	n, err := s.RemoveBan(ctx, "Bob", store.By{Actor: "alice", Reason: "appeal"})
	if err != nil || n != 2 {
		t.Fatalf("RemoveBan(Bob) = %d, %v; want 2", n, err)
	}
	if b, ok := activeBan(t, s, fpBob, ""); ok {
		t.Errorf("bob still banned: %+v", b)
	}
	if _, ok := activeBan(t, s, fpCarol, ""); !ok {
		t.Error("lifting bob's bans lifted carol's")
	}
	all, err := s.Bans(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	lifted := 0
	for _, b := range all {
		switch {
		case b.ID == expired.ID:
			if !b.Lifted.IsZero() {
				t.Errorf("the already expired ban was marked lifted: %+v", b)
			}
		case b.Fingerprint == fpBob:
			if b.Lifted != clock.Now() || b.LiftedBy != "alice" {
				t.Errorf("lifted ban = %+v; want Lifted now, LiftedBy alice", b)
			}
			lifted++
		}
	}
	if lifted != 2 || len(all) != 4 {
		t.Errorf("Bans(true) = %+v; want all 4 kept, 2 of bob's lifted", all)
	}

	if n, err := s.RemoveBan(ctx, fpBob, store.By{Actor: "alice"}); err != nil || n != 0 {
		t.Errorf("second RemoveBan = %d, %v; want 0", n, err)
	}
	if n, err := s.RemoveBan(ctx, fpCarol, store.By{Actor: "alice"}); err != nil || n != 1 {
		t.Errorf("RemoveBan by fingerprint = %d, %v; want 1", n, err)
	}
	if _, err := s.RemoveBan(ctx, "nobody", store.By{Actor: "alice"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RemoveBan(unknown name) err = %v, want ErrNotFound", err)
	}
	if n, err := s.RemoveBan(ctx, "SHA256:stranger", store.By{Actor: "alice"}); err != nil || n != 0 {
		t.Errorf("RemoveBan(unknown fingerprint) = %d, %v; want 0, nil", n, err)
	}
	if _, err := s.RemoveBan(ctx, "bob", store.By{}); err == nil {
		t.Error("RemoveBan without an actor succeeded")
	}

	got := actions(mustAuditLog(t, s))
	want := []string{"unban carol", "unban bob", "ban carol", "ban bob", "ban bob", "ban bob"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %q, want %q (lifting nothing writes nothing)", got, want)
	}
	if e := mustAuditLog(t, s)[1]; e.Reason != "appeal" || e.TargetID != fpBob {
		t.Errorf("unban entry = %+v", e)
	}
}

func TestAddBanRefusesBadInput(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	now := clock.Now()
	for name, b := range map[string]store.Ban{
		"id set":          {ID: 7, Fingerprint: fpBob, Actor: "a"},
		"no actor":        {Fingerprint: fpBob},
		"no fingerprint":  {Actor: "a", CIDR: "192.0.2.1"},
		"bad fingerprint": {Fingerprint: "SHA256:a b", Actor: "a"},
		"bad range":       {Fingerprint: fpBob, Actor: "a", CIDR: "192.0.2.0/40"},
		"expired":         {Fingerprint: fpBob, Actor: "a", Created: now, Expires: now},
		"lifted":          {Fingerprint: fpBob, Actor: "a", Lifted: now},
		"huge reason":     {Fingerprint: fpBob, Actor: "a", Reason: strings.Repeat("x", store.MaxReasonLen+1)},
	} {
		if got, err := s.AddBan(ctx, b); err == nil {
			t.Errorf("%s: AddBan accepted it: %+v", name, got)
		}
	}
	if bans, _ := s.Bans(ctx, true); len(bans) != 0 {
		t.Errorf("refused bans were stored: %+v", bans)
	}
	if log := mustAuditLog(t, s); len(log) != 0 {
		t.Errorf("refused bans were audited: %+v", log)
	}
}

func TestModerationNeedsItsBuckets(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	mustLogin(t, s, fpBob, "bob")
	// Without the audit bucket no moderation write may go through: the
	// change and its log line are one transaction.
	if err := s.DB().Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte(bucketAudit)) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddBan(ctx, store.Ban{Fingerprint: fpBob, Actor: "a"}); err == nil {
		t.Error("AddBan succeeded without an audit bucket")
	}
	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpBob, Actor: "a"}); err == nil {
		t.Error("SetMute succeeded without an audit bucket")
	}
	if _, err := s.SetRole(ctx, fpBob, store.RoleModerator, store.By{Actor: "a"}); err == nil {
		t.Error("SetRole succeeded without an audit bucket")
	}
	if p, _ := s.PlayerByFingerprint(ctx, fpBob); p.Role != "" {
		t.Errorf("role changed without its audit entry: %+v", p)
	}
}

func TestMutes(t *testing.T) {
	path := dbPath(t)
	clock := newClock()
	s, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	mustLogin(t, s, fpBob, "bob")
	mustLogin(t, s, fpCarol, "carol")
	now := clock.Now()
	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpBob, Reason: "caps", Actor: "alice", Expires: now.Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpCarol, Reason: "flood", Actor: "spam-filter", Auto: true, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, path, Options{Now: clock.Now})
	m, ok, err := s.ActiveMute(ctx, fpBob)
	want := store.Mute{Fingerprint: fpBob, Name: "bob", Reason: "caps", Actor: "alice", Created: now, Expires: now.Add(10 * time.Minute)}
	if err != nil || !ok || m != want {
		t.Errorf("ActiveMute(bob) after reopen = %+v, %v, %v; want %+v", m, ok, err, want)
	}
	if ms, err := s.Mutes(ctx); err != nil || len(ms) != 2 || ms[0].Fingerprint != fpCarol || !ms[0].Auto {
		t.Errorf("Mutes = %+v, %v; want carol's (auto) then bob's", ms, err)
	}

	clock.Advance(10 * time.Minute)
	if m, ok, _ := s.ActiveMute(ctx, fpBob); ok {
		t.Errorf("expired mute still applies: %+v", m)
	}
	if ms, _ := s.Mutes(ctx); len(ms) != 1 || ms[0].Fingerprint != fpCarol {
		t.Errorf("Mutes after bob's expired = %+v", ms)
	}
	if active, err := s.RemoveMute(ctx, fpBob, store.By{Actor: "alice"}); err != nil || active {
		t.Errorf("RemoveMute(expired) = %v, %v; want false", active, err)
	}

	// A new mute replaces the old one.
	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpCarol, Actor: "alice", Reason: "again"}); err != nil {
		t.Fatal(err)
	}
	if m, ok, _ := s.ActiveMute(ctx, fpCarol); !ok || m.Reason != "again" || !m.Expires.IsZero() || m.Auto {
		t.Errorf("replaced mute = %+v, %v", m, ok)
	}
	if active, err := s.RemoveMute(ctx, fpCarol, store.By{Actor: "alice", Reason: "ok now"}); err != nil || !active {
		t.Errorf("RemoveMute(active) = %v, %v; want true", active, err)
	}
	if _, ok, _ := s.ActiveMute(ctx, fpCarol); ok {
		t.Error("carol still muted after RemoveMute")
	}

	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpBob, Actor: "a", Expires: clock.Now()}); err == nil {
		t.Error("SetMute accepted a mute that has already ended")
	}
	if err := s.SetMute(ctx, store.Mute{Fingerprint: fpBob}); err == nil {
		t.Error("SetMute accepted a mute without an actor")
	}

	log := mustAuditLog(t, s)
	got := actions(log)
	wantLog := []string{"unmute carol", "mute carol", "mute carol", "mute bob"}
	if !reflect.DeepEqual(got, wantLog) {
		t.Errorf("audit = %q, want %q", got, wantLog)
	}
	if e := log[2]; !e.Auto || e.Actor != "spam-filter" || e.Duration != time.Hour-time.Second {
		t.Errorf("auto mute entry = %+v", e)
	}
}

func TestAuditLog(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	start := clock.Now()
	for i, a := range []string{store.ActionWarn, store.ActionKick, store.ActionAnnounce, store.ActionWarn, store.ActionKick} {
		if err := s.Audit(ctx, store.AuditEntry{Actor: "alice", Action: a, Target: "bob", Reason: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}

	all := mustAuditLog(t, s)
	if len(all) != 5 {
		t.Fatalf("AuditLog = %d entries, want 5", len(all))
	}
	for i, e := range all {
		wantID := uint64(5 - i)
		wantTime := start.Add(time.Duration(4-i) * time.Minute)
		if e.ID != wantID || e.Time != wantTime || e.Reason != string(rune('a'+4-i)) {
			t.Errorf("entry %d = %+v; want id %d at %s (newest first)", i, e, wantID, wantTime)
		}
	}

	since, err := s.AuditLog(ctx, start.Add(2*time.Minute), 0)
	if err != nil || len(since) != 3 || since[2].ID != 3 {
		t.Errorf("AuditLog(since +2m) = %+v, %v; want ids 5, 4, 3", since, err)
	}
	limited, err := s.AuditLog(ctx, time.Time{}, 2)
	if err != nil || len(limited) != 2 || limited[0].ID != 5 || limited[1].ID != 4 {
		t.Errorf("AuditLog(limit 2) = %+v, %v; want ids 5, 4", limited, err)
	}

	for name, e := range map[string]store.AuditEntry{
		"no actor":  {Action: store.ActionWarn},
		"no action": {Actor: "alice"},
		"id set":    {ID: 9, Actor: "alice", Action: store.ActionWarn},
		"huge":      {Actor: "alice", Action: store.ActionWarn, Reason: strings.Repeat("x", store.MaxReasonLen+1)},
	} {
		if err := s.Audit(ctx, e); err == nil {
			t.Errorf("%s: Audit accepted %+v", name, e)
		}
	}
	if n := len(mustAuditLog(t, s)); n != 5 {
		t.Errorf("refused entries were written: %d entries", n)
	}
}

func TestSetRoleAndModerators(t *testing.T) {
	path := dbPath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fp := range []string{fpAlice, fpBob, fpCarol} {
		mustLogin(t, s, fp, strings.TrimPrefix(fp, "SHA256:"))
	}
	for _, fp := range []string{fpCarol, fpBob} {
		p, err := s.SetRole(ctx, fp, store.RoleModerator, store.By{Actor: "root-admin"})
		if err != nil || p.Role != store.RoleModerator {
			t.Fatalf("SetRole(%s) = %+v, %v", fp, p, err)
		}
	}
	// Promoting a moderator again changes nothing and logs nothing.
	if p, err := s.SetRole(ctx, fpBob, store.RoleModerator, store.By{Actor: "root-admin"}); err != nil || p.Role != store.RoleModerator {
		t.Errorf("repeat SetRole = %+v, %v", p, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, path, Options{})
	// Logging in again must not reset the role.
	if p := mustLogin(t, s, fpBob, "bob"); p.Role != store.RoleModerator {
		t.Errorf("bob after reopen and login = %+v", p)
	}
	mods, err := s.Moderators(ctx)
	if err != nil || len(mods) != 2 || mods[0].Name != "bob" || mods[1].Name != "carol" {
		t.Errorf("Moderators = %+v, %v; want bob, carol", mods, err)
	}
	if p, err := s.SetRole(ctx, fpBob, "", store.By{Actor: "root-admin", Reason: "inactive"}); err != nil || p.Role != "" {
		t.Errorf("demote = %+v, %v", p, err)
	}
	if mods, _ := s.Moderators(ctx); len(mods) != 1 || mods[0].Name != "carol" {
		t.Errorf("Moderators after demote = %+v", mods)
	}

	if _, err := s.SetRole(ctx, "SHA256:nobody", store.RoleModerator, store.By{Actor: "a"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetRole(unknown) err = %v, want ErrNotFound", err)
	}
	if _, err := s.SetRole(ctx, fpAlice, "admin", store.By{Actor: "a"}); err == nil {
		t.Error("SetRole accepted role admin")
	}
	if _, err := s.SetRole(ctx, fpAlice, store.RoleModerator, store.By{}); err == nil {
		t.Error("SetRole accepted a change without an actor")
	}

	got := actions(mustAuditLog(t, s))
	want := []string{"demote bob", "promote bob", "promote carol"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %q, want %q", got, want)
	}
}

func TestMigration3OnSchema2File(t *testing.T) {
	path := dbPath(t)
	s := openWithTest(t, path, migrations()[:2])
	alice := mustLogin(t, s, fpAlice, "alice")
	mustLogin(t, s, fpBob, "bob")
	match := mustRecord(t, s, duel(fpAlice, fpBob), shift(16, -16))
	if v, err := s.SchemaVersion(ctx); err != nil || v != 2 {
		t.Fatalf("schema-2 file has version %d, %v", v, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openWithTest(t, path, migrations()[:3])
	if v, err := s.SchemaVersion(ctx); err != nil || v != 3 {
		t.Errorf("SchemaVersion after upgrade = %d, %v; want 3", v, err)
	}
	err := s.DB().View(func(tx *bbolt.Tx) error {
		for _, b := range []string{bucketBans, bucketBanFingerprints, bucketBanRanges, bucketMutes, bucketAudit, bucketReplays} {
			if tx.Bucket([]byte(b)) == nil {
				t.Errorf("bucket %s missing after migration 3", b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.PlayerByName(ctx, "alice"); err != nil || got != alice {
		t.Errorf("alice after migration = %+v, %v; want %+v", got, err, alice)
	}
	if got, err := s.Match(ctx, match.ID); err != nil || !reflect.DeepEqual(got, match) {
		t.Errorf("match after migration = %+v, %v", got, err)
	}
	if r := mustRating(t, s, "pong-1v1", fpAlice); r.Rating != 1516 {
		t.Errorf("rating after migration = %+v", r)
	}
	checkIndex(t, s)

	mustBan(t, s, store.Ban{Fingerprint: fpBob, Actor: "alice"})
	if _, ok := activeBan(t, s, fpBob, ""); !ok {
		t.Error("ban on the upgraded file does not apply")
	}
	if err := s.PutReplay(ctx, match.ID, []byte("replay")); err != nil {
		t.Errorf("PutReplay on the upgraded file: %v", err)
	}
}
