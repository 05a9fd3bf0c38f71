package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// These walk each area of the store once on PostgreSQL, with the
// store's clock under the test's control; store/storetest holds both
// backends to the whole contract.

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openClocked(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC)}
	s, err := Open(context.Background(), pgtest.URL(t), Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func login(t *testing.T, s *Store, fp, keyType, user string) store.Player {
	t.Helper()
	p, _, err := s.Login(context.Background(), fp, keyType, user)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlayersAndRename(t *testing.T) {
	s, c := openClocked(t)
	ctx := context.Background()
	ann, created, err := s.Login(ctx, "SHA256:ann", "ssh-ed25519", "Ann")
	if err != nil || !created || ann.Name != "ann" || ann.KeyType != "ssh-ed25519" {
		t.Fatalf("first login: %+v %v %v", ann, created, err)
	}
	if !ann.FirstSeen.Equal(c.now().Truncate(time.Microsecond)) {
		t.Errorf("first seen %v, want the store's clock %v", ann.FirstSeen, c.now())
	}
	c.add(time.Hour)
	again, created, err := s.Login(ctx, "SHA256:ann", "ssh-rsa", "someone-else")
	if err != nil || created || again.Name != "ann" || again.FirstSeen != ann.FirstSeen || !again.LastSeen.After(ann.LastSeen) {
		t.Fatalf("returning login: %+v %v %v", again, created, err)
	}
	if got := must[store.Player](t)(s.PlayerByName(ctx, "ANN")); got != again {
		t.Fatalf("by name: %+v, want %+v", got, again)
	}
	if _, err := s.PlayerByName(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown name: %v", err)
	}
	login(t, s, "SHA256:bob", "ssh-ed25519", "bob")
	if _, err := s.Rename(ctx, "SHA256:ann", "Bob", 24*time.Hour); !errors.Is(err, store.ErrNameTaken) {
		t.Fatalf("rename to a taken name: %v", err)
	}
	if _, err := s.Rename(ctx, "SHA256:ann", "x", 24*time.Hour); !errors.Is(err, store.ErrInvalidName) {
		t.Fatalf("rename to an invalid name: %v", err)
	}
	p := must[store.Player](t)(s.Rename(ctx, "SHA256:ann", "Annie", 24*time.Hour))
	if p.Name != "annie" {
		t.Fatalf("renamed: %+v", p)
	}
	var soon *store.RenameTooSoonError
	if _, err := s.Rename(ctx, "SHA256:ann", "anna", 24*time.Hour); !errors.As(err, &soon) || !soon.Next.Equal(c.now().Truncate(time.Microsecond).Add(24*time.Hour)) {
		t.Fatalf("second rename within a day: %v", err)
	}
	// The old name is free again: a new player may take it.
	if cat, _, err := s.Login(ctx, "SHA256:cat", "ssh-ed25519", "ann"); err != nil || cat.Name != "ann" {
		t.Fatalf("the freed name: %+v %v", cat, err)
	}
	log := must[[]store.AuditEntry](t)(s.AuditLog(ctx, time.Time{}, 10))
	if len(log) != 1 || log[0].Action != store.ActionRename || log[0].Actor != "ann" || log[0].Target != "annie" || log[0].TargetID != "SHA256:ann" {
		t.Fatalf("audit after a rename: %+v", log)
	}
	if n := must[int](t)(s.CountPlayers(ctx)); n != 3 {
		t.Fatalf("%d players, want 3", n)
	}
	if _, _, err := s.Login(ctx, "bad key", "", ""); err == nil {
		t.Fatal("a fingerprint with a space was accepted")
	}
}

func TestRatingsLeaderboardAndHistory(t *testing.T) {
	s, _ := openClocked(t)
	ctx := context.Background()
	for _, n := range []string{"ann", "bob", "cat", "dan"} {
		login(t, s, "SHA256:"+n, "ssh-ed25519", n)
	}
	r, found, err := s.Rating(ctx, "pong-1v1", "SHA256:ann")
	if err != nil || found || r.Rating != store.InitialRating || r.Name != "ann" {
		t.Fatalf("rating before any game: %+v %v %v", r, found, err)
	}
	// ann beats bob twice; cat beats dan once; then a casual match and an
	// aborted ranked one, which change no rating.
	for _, pair := range [][2]string{{"ann", "bob"}, {"ann", "bob"}, {"cat", "dan"}} {
		must[store.MatchRecord](t)(s.RecordMatch(ctx, ranked("SHA256:"+pair[0], "SHA256:"+pair[1])))
	}
	casual := ranked("SHA256:bob", "SHA256:ann")
	casual.Match.Ranked, casual.Match.Mode = false, "casual-1v1"
	casual.Match.Players = append(casual.Match.Players, store.MatchPlayer{Name: "guest-1234", Slot: 2})
	cm := must[store.MatchRecord](t)(s.RecordMatch(ctx, casual))
	if cm.Players[2].Fingerprint != "" || cm.Players[0].RatingAfter != cm.Players[0].RatingBefore || cm.Players[0].Name != "bob" {
		t.Fatalf("casual match as recorded: %+v", cm.Players)
	}
	aborted := ranked("SHA256:dan", "SHA256:cat")
	aborted.Match.Aborted = true
	aborted.Rate = func([]store.Rating) ([]store.Rating, error) {
		t.Fatal("rate called for an aborted match")
		return nil, nil
	}
	must[store.MatchRecord](t)(s.RecordMatch(ctx, aborted))

	board := must[[]store.Rating](t)(s.Leaderboard(ctx, "pong-1v1", 0, 0))
	var order []string
	for _, r := range board {
		order = append(order, fmt.Sprintf("%s:%.0f/%d", r.Name, r.Rating, r.Games))
	}
	// ann 1520/2; cat 1510/1; then bob 1480/2 and dan 1490/1.
	if want := []string{"ann:1520/2", "cat:1510/1", "dan:1490/1", "bob:1480/2"}; !slices.Equal(order, want) {
		t.Fatalf("leaderboard %v, want %v", order, want)
	}
	page := must[[]store.Rating](t)(s.Leaderboard(ctx, "pong-1v1", 1, 2))
	if len(page) != 2 || page[0].Name != "cat" || page[1].Name != "dan" {
		t.Fatalf("page from 1 of 2: %+v", page)
	}
	if all := must[[]store.Rating](t)(s.Standings(ctx, "pong-1v1")); len(all) != 4 || all[0] != board[0] {
		t.Fatalf("standings: %+v", all)
	}
	ms := must[[]store.MatchRecord](t)(s.Matches(ctx, "SHA256:ann", 0))
	if len(ms) != 3 || ms[0].ID != cm.ID || ms[0].ID < ms[1].ID || ms[1].ID < ms[2].ID {
		t.Fatalf("ann's matches newest first: %+v", ms)
	}
	if got := must[store.MatchRecord](t)(s.Match(ctx, cm.ID)); got.Room != cm.Room || len(got.Players) != 3 || got.Players[2].Name != "guest-1234" || !got.Start.Equal(cm.Start) {
		t.Fatalf("match %d read back: %+v, recorded %+v", cm.ID, got, cm)
	}
	if _, err := s.Match(ctx, 9999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown match: %v", err)
	}
	recent := must[[]store.MatchRecord](t)(s.RecentMatches(ctx, 2, func(m store.MatchRecord) bool { return m.Ranked && !m.Aborted }))
	if len(recent) != 2 || recent[0].Players[0].Fingerprint != "SHA256:cat" {
		t.Fatalf("recent ranked: %+v", recent)
	}
	pr := must[store.Profile](t)(s.ProfileByName(ctx, "ann"))
	if len(pr.Ratings) != 1 || pr.Ratings[0].Games != 2 || len(pr.Matches) != 3 {
		t.Fatalf("profile: %+v", pr)
	}
}

func TestBansMutesRolesAudit(t *testing.T) {
	s, c := openClocked(t)
	ctx := context.Background()
	login(t, s, "SHA256:eve", "ssh-ed25519", "eve")
	b := must[store.Ban](t)(s.AddBan(ctx, store.Ban{Fingerprint: "SHA256:eve", CIDR: "203.0.113.7", Actor: "root", Reason: "spam", Expires: c.now().Add(time.Hour)}))
	if b.ID == 0 || b.CIDR != "203.0.113.7/32" || b.Name != "eve" {
		t.Fatalf("ban as stored: %+v", b)
	}
	perm := must[store.Ban](t)(s.AddBan(ctx, store.Ban{Fingerprint: "SHA256:mal", CIDR: "198.51.100.0/24", Actor: "root"}))
	for _, tc := range []struct {
		fp   string
		ip   string
		want uint64
	}{
		{"SHA256:eve", "", b.ID},
		{"", "203.0.113.7", b.ID},
		{"", "::ffff:203.0.113.7", b.ID},
		{"SHA256:other", "198.51.100.99", perm.ID},
		{"SHA256:eve", "198.51.100.1", perm.ID}, // the permanent one outlasts
		{"SHA256:other", "203.0.113.8", 0},
	} {
		var ip net.IP
		if tc.ip != "" {
			ip = net.ParseIP(tc.ip)
		}
		got, ok, err := s.ActiveBan(ctx, tc.fp, ip)
		if err != nil || (ok && got.ID != tc.want) || ok != (tc.want != 0) {
			t.Errorf("ActiveBan(%q, %q) = %d %v %v, want %d", tc.fp, tc.ip, got.ID, ok, err, tc.want)
		}
	}
	c.add(2 * time.Hour) // eve's ban runs out
	if _, ok, _ := s.ActiveBan(ctx, "SHA256:eve", nil); ok {
		t.Error("an expired ban still applies")
	}
	if active := must[[]store.Ban](t)(s.Bans(ctx, false)); len(active) != 1 || active[0].ID != perm.ID {
		t.Errorf("active bans: %+v", active)
	}
	if n := must[int](t)(s.RemoveBan(ctx, "SHA256:mal", store.By{Actor: "root", Reason: "appeal"})); n != 1 {
		t.Errorf("lifted %d", n)
	}
	if _, ok, _ := s.ActiveBan(ctx, "", net.ParseIP("198.51.100.99")); ok {
		t.Error("a lifted range ban still applies")
	}
	all := must[[]store.Ban](t)(s.Bans(ctx, true))
	if len(all) != 2 || all[0].ID != perm.ID || all[0].LiftedBy != "root" || all[0].Lifted.IsZero() {
		t.Errorf("every ban, newest first: %+v", all)
	}
	if _, err := s.RemoveBan(ctx, "nobody", store.By{Actor: "root"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unban of an unknown name: %v", err)
	}

	if err := s.SetMute(ctx, store.Mute{Fingerprint: "SHA256:eve", Actor: "mod", Expires: c.now().Add(10 * time.Minute), Auto: true}); err != nil {
		t.Fatal(err)
	}
	if m, ok, err := s.ActiveMute(ctx, "SHA256:eve"); err != nil || !ok || m.Name != "eve" || !m.Auto {
		t.Fatalf("mute: %+v %v %v", m, ok, err)
	}
	c.add(11 * time.Minute)
	if _, ok, _ := s.ActiveMute(ctx, "SHA256:eve"); ok {
		t.Error("an expired mute still applies")
	}
	if was := must[bool](t)(s.RemoveMute(ctx, "SHA256:eve", store.By{Actor: "mod"})); was {
		t.Error("removing an expired mute says it was active")
	}
	if err := s.SetMute(ctx, store.Mute{Fingerprint: "SHA256:eve", Actor: "mod"}); err != nil {
		t.Fatal(err)
	}
	if ms := must[[]store.Mute](t)(s.Mutes(ctx)); len(ms) != 1 {
		t.Errorf("mutes: %+v", ms)
	}
	if was := must[bool](t)(s.RemoveMute(ctx, "SHA256:eve", store.By{Actor: "mod"})); !was {
		t.Error("removing an active mute says it was not")
	}

	if _, err := s.SetRole(ctx, "SHA256:nobody", store.RoleModerator, store.By{Actor: "root"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("role of an unknown player: %v", err)
	}
	if p := must[store.Player](t)(s.SetRole(ctx, "SHA256:eve", store.RoleModerator, store.By{Actor: "root"})); p.Role != store.RoleModerator {
		t.Errorf("promoted: %+v", p)
	}
	must[store.Player](t)(s.SetRole(ctx, "SHA256:eve", store.RoleModerator, store.By{Actor: "root"})) // no change, no entry
	if mods := must[[]store.Player](t)(s.Moderators(ctx)); len(mods) != 1 || mods[0].Name != "eve" {
		t.Errorf("moderators: %+v", mods)
	}
	if err := s.Audit(ctx, store.AuditEntry{Actor: "root", Action: store.ActionAnnounce, Reason: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Audit(ctx, store.AuditEntry{Action: store.ActionWarn}); err == nil {
		t.Error("an entry without an actor was written")
	}
	var actions []string
	for _, e := range must[[]store.AuditEntry](t)(s.AuditLog(ctx, time.Time{}, 0)) {
		actions = append(actions, e.Action)
	}
	want := []string{"announce", "promote", "unmute", "mute", "mute", "unban", "ban", "ban"}
	if !slices.Equal(actions, want) {
		t.Errorf("audit log newest first: %v, want %v", actions, want)
	}
	since := must[[]store.AuditEntry](t)(s.AuditLog(ctx, c.now(), 0))
	if len(since) != 4 { // mute, unmute, promote and announce, at the clock's last reading
		t.Errorf("entries since now: %+v", since)
	}
}

func TestReplaysAndPruning(t *testing.T) {
	s, c := openClocked(t)
	ctx := context.Background()
	var ids []uint64
	for i := range 4 {
		end := ranked("SHA256:ann", "SHA256:bob")
		end.Match.Start = c.now()
		end.Replay = []byte(fmt.Sprintf("replay %d", i))
		ids = append(ids, must[store.MatchRecord](t)(s.RecordMatch(ctx, end)).ID)
		c.add(time.Hour)
	}
	if got := must[[]byte](t)(s.Replay(ctx, ids[2])); string(got) != "replay 2" {
		t.Fatalf("replay: %q", got)
	}
	if err := s.PutReplay(ctx, 9999, []byte("x")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("replay of an unknown match: %v", err)
	}
	// Keep each player's two newest; everything that ended more than 90
	// minutes ago is old enough to go: matches 0 and 1.
	n, err := s.PruneReplays(ctx, 2, 90*time.Minute, c.now())
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	for i, id := range ids {
		_, err := s.Replay(ctx, id)
		m := must[store.MatchRecord](t)(s.Match(ctx, id))
		if gone := i < 2; gone != errors.Is(err, store.ErrNotFound) || m.Replay == gone {
			t.Errorf("match %d after pruning: replay err %v, flag %v", i, err, m.Replay)
		}
	}
}

func TestLeavesStaleDropped(t *testing.T) {
	s, c := openClocked(t)
	ctx := context.Background()
	now := c.now()
	if err := s.PutLeaves(ctx, "SHA256:ann", store.Leaves{Strikes: 2, Last: now, Until: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutLeaves(ctx, "SHA256:bob", store.Leaves{Strikes: 1, Last: now.Add(-48 * time.Hour), Until: now.Add(-47 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	stale := func(l store.Leaves) bool { return l.Until.Before(now) }
	got := must[map[string]store.Leaves](t)(s.LoadLeaves(ctx, stale))
	if len(got) != 1 || got["SHA256:ann"].Strikes != 2 || !got["SHA256:ann"].Until.Equal(now.Add(time.Hour).Truncate(time.Microsecond)) {
		t.Fatalf("leaves: %+v", got)
	}
	if all := must[map[string]store.Leaves](t)(s.LoadLeaves(ctx, nil)); len(all) != 1 {
		t.Fatalf("the stale record was not deleted: %+v", all)
	}
}
