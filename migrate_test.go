package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/store/dump"
	"github.com/termarena/termarena/store/postgres"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// Two players a match apart, as a node that has played holds them.
const (
	fpAnn = "SHA256:ann0000000000000000000000000000000000000000"
	fpBob = "SHA256:bob0000000000000000000000000000000000000000"
	fpCat = "SHA256:cat0000000000000000000000000000000000000000"
)

// seedNode writes, through the store as the server does, one of
// everything migrate copies: players with a rename and a role, a ranked
// match with its replay and the ratings it made, a casual one, bans
// (one lifted, one with a range), a mute, audit entries, leave strikes.
func seedNode(t *testing.T, path string) {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Times with nanoseconds, which PostgreSQL keeps to the microsecond.
	start := time.Now().UTC().Add(-2*time.Hour + 123456789)
	for _, p := range []struct{ fp, user string }{{fpAnn, "ann"}, {fpBob, "bob"}, {fpCat, "cat"}} {
		if _, _, err := st.Login(context.Background(), p.fp, "ssh-ed25519", p.user); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Rename(context.Background(), fpAnn, "annie", time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetRole(context.Background(), fpCat, store.RoleModerator, store.By{Actor: "root"}); err != nil {
		t.Fatal(err)
	}
	ranked := store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: start, Duration: 90 * time.Second,
		Players: []store.MatchPlayer{{Fingerprint: fpAnn, Slot: 0, Place: 1, Score: 7}, {Fingerprint: fpBob, Slot: 1, Team: 1, Place: 2, Score: 3}}}
	rate := func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Rating, cur[0].Deviation, cur[0].Games, cur[0].Wins = 1741.25, 290.5, 1, 1
		cur[1].Rating, cur[1].Deviation, cur[1].Games, cur[1].Losses = 1258.75, 290.5, 1, 1
		return cur, nil
	}
	if _, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: ranked, Rate: rate, Replay: []byte("replay bytes of the ranked match")}); err != nil {
		t.Fatal(err)
	}
	casual := store.MatchRecord{Mode: "casual-1v1", Room: "c2", Start: start.Add(time.Hour), Duration: time.Minute,
		Players: []store.MatchPlayer{{Fingerprint: fpBob, Place: 1}, {Name: "guest-1", Slot: 1, Place: 2}}}
	if _, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: casual}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBan(context.Background(), store.Ban{Fingerprint: fpBob, Reason: "spam", Actor: "cat", Expires: start.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveBan(context.Background(), fpBob, store.By{Actor: "cat", Reason: "appeal"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBan(context.Background(), store.Ban{Fingerprint: fpBob, CIDR: "203.0.113.7", Reason: "again", Actor: "cat"}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMute(context.Background(), store.Mute{Fingerprint: fpAnn, Reason: "caps", Actor: "cat", Created: start}); err != nil {
		t.Fatal(err)
	}
	if err := st.Audit(context.Background(), store.AuditEntry{Actor: "root", Action: store.ActionAnnounce, Reason: "maintenance at noon"}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutLeaves(context.Background(), fpBob, store.Leaves{Strikes: 2, Last: start, Until: start.Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
}

// migrate runs `termarena migrate ARGS` as the binary would.
func migrate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"migrate"}, args...), env(nil), &out, &errOut)
	return code, out.String(), errOut.String()
}

// exported is every record of a store as comparable text: times as a
// backend keeps them (UTC, microseconds), one record a line.
func exported(t *testing.T, ex exporter) []string {
	t.Helper()
	var lines []string
	err := ex.Export(context.Background(), func(r dump.Record) error {
		var b bytes.Buffer
		w, err := dump.NewWriter(&b, "", time.Time{})
		if err != nil {
			return err
		}
		if err := w.Write(r.Normalized()); err != nil {
			return err
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		lines = append(lines, strings.Split(b.String(), "\n")[1])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func exportedBolt(t *testing.T, path string) []string {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return exported(t, st)
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differs from the source:\n got: %s\nwant: %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// wantCounts checks the table migrate prints: "KIND  N copied  M already there".
func wantCounts(t *testing.T, out string, copied map[string]int, same bool) {
	t.Helper()
	for kind, n := range copied {
		c, s := n, 0
		if same {
			c, s = 0, n
		}
		want := fmt.Sprintf("%-22s %6d copied %6d already there", kind, c, s)
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// seeded is what seedNode writes, by the names migrate prints.
var seeded = map[string]int{
	"players and names": 3, "roles (moderators)": 1, "ratings": 2, "matches": 2, "replays": 1,
	"bans": 2, "mutes": 1, "audit entries": 7, "leave strikes": 1,
}

// TestMigrateBoltToBoltKeepsEverythingAndIsIdempotent copies a played
// node's file into a new one: every record arrives as it was (ids,
// times, the lifted ban), the copy serves it (a profile, a replay, the
// ban at login, new ids after the copied ones), and a second run copies
// nothing and says so.
func TestMigrateBoltToBoltKeepsEverythingAndIsIdempotent(t *testing.T) {
	src := filepath.Join(t.TempDir(), "termarena.db")
	seedNode(t, src)
	dstDir := t.TempDir()

	code, out, errOut := migrate(t, "--from", src, "--to", dstDir)
	if code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, errOut)
	}
	wantCounts(t, out, seeded, false)
	if !strings.Contains(out, "copied 19 records (0 were already there)") {
		t.Errorf("first run's summary:\n%s", out)
	}
	dst := filepath.Join(dstDir, "termarena.db")
	sameLines(t, "the copy", exportedBolt(t, dst), exportedBolt(t, src))

	code, out, errOut = migrate(t, "--from", filepath.Dir(src), "--to", dst)
	if code != 0 {
		t.Fatalf("second migrate: exit %d: %s", code, errOut)
	}
	wantCounts(t, out, seeded, true)
	if !strings.Contains(out, "nothing to copy: the target already holds all 19 records") {
		t.Errorf("second run does not say it changed nothing:\n%s", out)
	}
	checkServes(t, dst)
}

// checkServes reads the copy as the server would.
func checkServes(t *testing.T, path string) {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	prof, err := st.ProfileByName(context.Background(), "annie")
	if err != nil || prof.Player.Fingerprint != fpAnn || len(prof.Ratings) != 1 || prof.Ratings[0].Rating != 1741.25 || len(prof.Matches) != 1 {
		t.Errorf("annie's profile in the copy: %+v, %v", prof, err)
	}
	if _, err := st.Rename(context.Background(), fpAnn, "ann2", time.Hour); err == nil {
		t.Errorf("the rename interval was not kept: annie renamed again at once")
	}
	data, err := st.Replay(context.Background(), prof.Matches[0].ID)
	if err != nil || string(data) != "replay bytes of the ranked match" {
		t.Errorf("replay of match %d: %q, %v", prof.Matches[0].ID, data, err)
	}
	if b, banned, err := st.ActiveBan(context.Background(), "SHA256:someone-else", net.ParseIP("203.0.113.7")); err != nil || !banned || b.Fingerprint != fpBob {
		t.Errorf("the range ban does not refuse its address in the copy: %+v %v %v", b, banned, err)
	}
	mods, err := st.Moderators(context.Background())
	if err != nil || len(mods) != 1 || mods[0].Name != "cat" {
		t.Errorf("moderators in the copy: %+v, %v", mods, err)
	}
	// New ids continue after the copied ones.
	m, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Start: time.Now(), Players: []store.MatchPlayer{{Fingerprint: fpCat, Place: 1}}}})
	if err != nil || m.ID != 3 {
		t.Errorf("a new match in the copy: id %d, %v; want 3", m.ID, err)
	}
	b, err := st.AddBan(context.Background(), store.Ban{Fingerprint: fpCat, Actor: "root"})
	if err != nil || b.ID != 3 {
		t.Errorf("a new ban in the copy: id %d, %v; want 3", b.ID, err)
	}
	log, err := st.AuditLog(context.Background(), time.Time{}, 1)
	if err != nil || len(log) != 1 || log[0].ID != 8 {
		t.Errorf("the new ban's audit entry: %+v, %v; want id 8", log, err)
	}
}

// TestMigrateRefuses: each way migrate cannot copy says why, with exit 2
// for usage and 1 otherwise, and writes nothing into the target.
func TestMigrateRefuses(t *testing.T) {
	src := filepath.Join(t.TempDir(), "termarena.db")
	seedNode(t, src)

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flags", nil, 2, "both --from and --to are required"},
		{"no target", []string{"--from", src}, 2, "both --from and --to are required"},
		{"stray argument", []string{"--from", src, "--to", t.TempDir(), "now"}, 2, `unexpected argument "now"`},
		{"same store", []string{"--from", src, "--to", filepath.Dir(src)}, 2, "the same store"},
		{"missing source", []string{"--from", filepath.Join(t.TempDir(), "nope.db"), "--to", t.TempDir()}, 1, "no such file"},
		{"bad url", []string{"--from", src, "--to", "postgres://%zz"}, 1, "not a PostgreSQL URL"},
		{"target dir missing", []string{"--from", src, "--to", filepath.Join(t.TempDir(), "no", "dir", "x.db")}, 1, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := migrate(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}

	t.Run("source in use", func(t *testing.T) {
		// A running server holds the file's lock for as long as it runs.
		held, err := bolt.Open(src, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		dst := filepath.Join(t.TempDir(), "termarena.db")
		code, _, errOut := migrate(t, "--from", src, "--to", dst)
		if code != 1 || !strings.Contains(errOut, "in use by a running termarena") || !strings.Contains(errOut, "admin backup") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})

	t.Run("target newer schema", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "termarena.db")
		st, err := bolt.Open(dst, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := bbolt.Open(dst, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bbolt.Tx) error {
			return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte(`{"v":1,"schema":999}`))
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		code, _, errOut := migrate(t, "--from", src, "--to", dst)
		if code != 1 || !strings.Contains(errOut, "newer") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})

	t.Run("target holds other data", func(t *testing.T) {
		// A target that is not a copy of the source: another node's
		// player under ann's name. Nothing may be overwritten, nor half
		// copied.
		dst := filepath.Join(t.TempDir(), "termarena.db")
		st, err := bolt.Open(dst, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Login(context.Background(), "SHA256:other", "ssh-ed25519", "annie"); err != nil {
			t.Fatal(err)
		}
		st.Close()
		before := exportedBolt(t, dst)
		code, _, errOut := migrate(t, "--from", src, "--to", dst)
		if code != 1 || !strings.Contains(errOut, `the name "annie" for another key`) || !strings.Contains(errOut, "nothing was copied") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		sameLines(t, "the target after a refused copy", exportedBolt(t, dst), before)
	})

	t.Run("backup cut short", func(t *testing.T) {
		// The portable export with its last lines lost (a full disk, a
		// dropped ssh): refused, and nothing of it copied.
		st, err := bolt.Open(src, bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w, err := dump.NewWriter(&b, "bolt", time.Now())
		if err == nil {
			err = st.Export(context.Background(), w.Write)
		}
		if err == nil {
			_, err = w.Close()
		}
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(b.String(), "\n")
		backup := filepath.Join(t.TempDir(), "backup.jsonl")
		if err := os.WriteFile(backup, []byte(strings.Join(lines[:len(lines)-3], "")), 0o600); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "termarena.db")
		code, _, errOut := migrate(t, "--from", backup, "--to", dst)
		if code != 1 || !strings.Contains(errOut, "cut short") || !strings.Contains(errOut, "nothing was copied") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		if got := exportedBolt(t, dst); len(got) != 0 {
			t.Errorf("a cut-short backup left %d records in the target", len(got))
		}
	})

	t.Run("target moved on", func(t *testing.T) {
		// A copy the server has used since: bob's rating changed there.
		dst := filepath.Join(t.TempDir(), "termarena.db")
		if code, _, errOut := migrate(t, "--from", src, "--to", dst); code != 0 {
			t.Fatal(errOut)
		}
		st, err := bolt.Open(dst, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutLeaves(context.Background(), fpBob, store.Leaves{Strikes: 3, Last: time.Now(), Until: time.Now()}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		code, _, errOut := migrate(t, "--from", src, "--to", dst)
		if code != 1 || !strings.Contains(errOut, "leave strikes of "+fpBob+" with different content") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}

// TestMigrateThroughPostgres copies a played node's bbolt file into
// PostgreSQL (counts printed; a second run copies nothing), takes the
// database's backup (the portable export admin backup streams), and
// migrates both the database and that backup back into bbolt files,
// which hold exactly what the node held.
func TestMigrateThroughPostgres(t *testing.T) {
	url := pgtest.URL(t)
	src := filepath.Join(t.TempDir(), "termarena.db")
	seedNode(t, src)

	code, out, errOut := migrate(t, "--from", src, "--to", url)
	if code != 0 {
		t.Fatalf("migrate into PostgreSQL: exit %d: %s", code, errOut)
	}
	wantCounts(t, out, seeded, false)
	code, out, errOut = migrate(t, "--from", src, "--to", url)
	if code != 0 {
		t.Fatalf("second migrate: exit %d: %s", code, errOut)
	}
	wantCounts(t, out, seeded, true)
	if !strings.Contains(out, "nothing to copy: the target already holds all 19 records") {
		t.Errorf("second run into PostgreSQL:\n%s", out)
	}

	pg, err := postgres.Open(context.Background(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameLines(t, "PostgreSQL's copy", exported(t, pg), exportedBolt(t, src))
	backup := filepath.Join(t.TempDir(), "backup.jsonl")
	f, err := os.Create(backup)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Backup(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	pg.Close()

	back := filepath.Join(t.TempDir(), "termarena.db")
	if code, _, errOut := migrate(t, "--from", url, "--to", back); code != 0 {
		t.Fatalf("migrate back: exit %d: %s", code, errOut)
	}
	sameLines(t, "the round trip through PostgreSQL", exportedBolt(t, back), exportedBolt(t, src))
	checkServes(t, back)

	fromBackup := filepath.Join(t.TempDir(), "termarena.db")
	if code, _, errOut := migrate(t, "--from", backup, "--to", fromBackup); code != 0 {
		t.Fatalf("migrate from the backup: exit %d: %s", code, errOut)
	}
	sameLines(t, "the copy from PostgreSQL's backup", exportedBolt(t, fromBackup), exportedBolt(t, src))

	// The bbolt copy served a match, a ban and its audit entry
	// (checkServes): a later run adds just those.
	code, out, errOut = migrate(t, "--to", url, "--from", filepath.Dir(back))
	if code != 0 || !strings.Contains(out, "copied 3 records (19 were already there)") {
		t.Errorf("migrating the used copy back: exit %d: %s%s", code, out, errOut)
	}
}

// TestMigrateRefusesANewerDatabase: a database a newer build has
// migrated is refused before anything is copied into it.
func TestMigrateRefusesANewerDatabase(t *testing.T) {
	url := pgtest.URL(t)
	pg, err := postgres.Open(context.Background(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Close()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(context.Background(), "INSERT INTO schema_version (version) VALUES (999)")
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "termarena.db")
	seedNode(t, src)
	code, out, errOut := migrate(t, "--from", src, "--to", url)
	if code != 1 || !strings.Contains(errOut, "schema version 999") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestMigrateFromAnOlderBuildsFile: a data file an older build wrote
// (schema 4, Elo ratings) is copied as this build reads it (Glicko-2
// deviations), and is itself left as it was.
func TestMigrateFromAnOlderBuildsFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("store", "bolt", "testdata", "ratings-elo-dc7ddbc.db"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "termarena.db")
	if err := os.WriteFile(src, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "termarena.db")
	code, out, errOut := migrate(t, "--from", src, "--to", dst)
	if code != 0 || !strings.Contains(out, "copied 54 records") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(after, raw) {
		t.Errorf("migrate changed the older file it copied from")
	}
	st, err := bolt.Open(dst, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	alice, err := st.PlayerByName(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	r, found, err := st.Rating(context.Background(), "pong-1v1", alice.Fingerprint)
	if err != nil || !found || r.Games != 40 || r.Deviation < 54 || r.Deviation > 55 {
		t.Errorf("alice's pong-1v1 rating in the copy: %+v %v %v; want 40 games ± 54.6", r, found, err)
	}
	if ms, err := st.Matches(context.Background(), alice.Fingerprint, 100); err != nil || len(ms) != 40 {
		t.Errorf("alice's matches in the copy: %d, %v; want 40", len(ms), err)
	}
}

// seedStore writes one of everything through the store interface, as a
// server on any backend does: a match end with its replay, ratings and a
// leaver's strikes in one value.
func seedStore(t *testing.T, st store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, p := range []struct{ fp, user string }{{fpAnn, "ann"}, {fpBob, "bob"}, {fpCat, "cat"}} {
		if _, _, err := st.Login(ctx, p.fp, "ssh-ed25519", p.user); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Rename(ctx, fpAnn, "annie", time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetRole(ctx, fpCat, store.RoleModerator, store.By{Actor: "root"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(-2*time.Hour + 123456789)
	end := store.MatchEnd{
		Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Forfeit: true, Room: "r1", Start: start, Duration: 90 * time.Second,
			Players: []store.MatchPlayer{{Fingerprint: fpAnn, Place: 1, Score: 7}, {Fingerprint: fpBob, Slot: 1, Team: 1, Place: 2, Score: 3, Left: true}}},
		Rate: func(cur []store.Rating) ([]store.Rating, error) {
			cur[0].Rating, cur[0].Deviation, cur[0].Games, cur[0].Wins = 1741.25, 290.5, 1, 1
			cur[1].Rating, cur[1].Deviation, cur[1].Games, cur[1].Losses = 1258.75, 290.5, 1, 1
			return cur, nil
		},
		Replay: []byte("replay bytes of the ranked match"),
		Leaves: map[string]store.Leaves{fpBob: {Strikes: 1, Last: start, Until: start.Add(5 * time.Minute)}},
	}
	if _, err := st.RecordMatch(ctx, end); err != nil {
		t.Fatal(err)
	}
	casual := store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Room: "c2", Start: start.Add(time.Hour), Duration: time.Minute,
		Players: []store.MatchPlayer{{Fingerprint: fpBob, Place: 1}, {Name: "guest-1", Slot: 1, Place: 2}}}}
	if _, err := st.RecordMatch(ctx, casual); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBan(ctx, store.Ban{Fingerprint: fpBob, Reason: "spam", Actor: "cat", Expires: start.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveBan(ctx, fpBob, store.By{Actor: "cat", Reason: "appeal"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBan(ctx, store.Ban{Fingerprint: fpBob, CIDR: "2001:db8::7/64", Reason: "again", Actor: "cat"}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMute(ctx, store.Mute{Fingerprint: fpAnn, Reason: "caps", Actor: "cat", Created: start}); err != nil {
		t.Fatal(err)
	}
	if err := st.Audit(ctx, store.AuditEntry{Actor: "root", Action: store.ActionAnnounce, Reason: "maintenance at noon"}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateWhatPostgresWrote: a database a PostgreSQL node has served
// (written by its own store, not by migrate) copies into a bbolt file and
// from there into a new database, each holding exactly what it held; the
// new database serves it and continues its ids.
func TestMigrateWhatPostgresWrote(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	pg, err := postgres.Open(ctx, url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	seedStore(t, pg)

	file := filepath.Join(t.TempDir(), "termarena.db")
	if code, out, errOut := migrate(t, "--from", url, "--to", file); code != 0 || !strings.Contains(out, "copied 19 records") {
		t.Fatalf("migrate into bbolt: exit %d: %s%s", code, out, errOut)
	}
	want := exported(t, pg)
	sameLines(t, "the bbolt copy", exportedBolt(t, file), want)

	url2 := pgtest.URL(t)
	if code, out, errOut := migrate(t, "--from", file, "--to", url2); code != 0 || !strings.Contains(out, "copied 19 records") {
		t.Fatalf("migrate into a new database: exit %d: %s%s", code, out, errOut)
	}
	pg2, err := postgres.Open(ctx, url2, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg2.Close()
	sameLines(t, "the new database", exported(t, pg2), want)

	prof, err := pg2.ProfileByName(ctx, "annie")
	if err != nil || len(prof.Ratings) != 1 || prof.Ratings[0].Rating != 1741.25 || len(prof.Matches) != 1 {
		t.Fatalf("annie's profile: %+v, %v", prof, err)
	}
	if data, err := pg2.Replay(ctx, prof.Matches[0].ID); err != nil || string(data) != "replay bytes of the ranked match" {
		t.Errorf("the replay: %q, %v", data, err)
	}
	if b, banned, err := pg2.ActiveBan(ctx, "", net.ParseIP("2001:db8::1")); err != nil || !banned || b.Fingerprint != fpBob {
		t.Errorf("the range ban: %+v %v %v", b, banned, err)
	}
	m, err := pg2.RecordMatch(ctx, store.MatchEnd{Match: store.MatchRecord{Mode: "casual-1v1", Start: time.Now(),
		Players: []store.MatchPlayer{{Fingerprint: fpCat, Place: 1}}}})
	if err != nil || m.ID != 3 {
		t.Errorf("a new match: id %d, %v; want 3", m.ID, err)
	}
	if b, err := pg2.AddBan(ctx, store.Ban{Fingerprint: fpCat, Actor: "root"}); err != nil || b.ID != 3 {
		t.Errorf("a new ban: id %d, %v; want 3", b.ID, err)
	}
	if log, err := pg2.AuditLog(ctx, time.Time{}, 1); err != nil || len(log) != 1 || log[0].ID != 8 {
		t.Errorf("the new ban's audit entry: %+v, %v; want id 8", log, err)
	}
}
