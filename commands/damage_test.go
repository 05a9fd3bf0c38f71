package commands_test

import (
	"fmt"
	"os"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/commands"
)

// TestDamagedDatabaseIsSaidSo garbles the root page of a bucket in the
// real file, as a bad sector would. The commands that read it exit 1 and
// say the database is damaged instead of "please try again", which cannot
// help (found by hand: profile and leaderboard on a garbled ratings page).
func TestDamagedDatabaseIsSaidSo(t *testing.T) {
	const damaged = "the server's database is damaged"
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	for i := range 40 {
		fp := fmt.Sprintf("SHA256:p%02d", i)
		w.login(fp, fmt.Sprintf("p%02d", i))
		w.rankedWin(fp, bob, true)
	}
	w.rankedWin(alice, bob, true)

	w.garble("ratings")
	check(t, commands.Profile, w.deps, []cmdCase{
		{name: "profile", who: asAlice, code: 1, stderr: damaged},
	})
	check(t, commands.Leaderboard, w.deps, []cmdCase{
		{name: "leaderboard", who: asAlice, code: 1, stderr: damaged},
	})
	w.garble("matches")
	check(t, commands.Matches, w.deps, []cmdCase{
		{name: "matches", who: asAlice, code: 1, stderr: damaged},
	})
	check(t, commands.Replays, w.deps, []cmdCase{
		{name: "replays", who: asAlice, code: 1, stderr: damaged},
	})
	w.garble("players")
	check(t, commands.Profile, w.deps, []cmdCase{
		{name: "own record", who: asAlice, code: 1, stderr: damaged},
	})
}

// garble overwrites the root page of bucket name while the store has the
// file open: bbolt maps it shared, so the store sees the damage at once.
func (w *world) garble(name string) {
	w.t.Helper()
	var page, pageSize int64
	if err := w.store.DB().View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(name))
		if b == nil {
			return fmt.Errorf("no bucket %q", name)
		}
		page, pageSize = int64(b.Root()), int64(tx.DB().Info().PageSize)
		return nil
	}); err != nil {
		w.t.Fatal(err)
	}
	if page == 0 {
		w.t.Fatalf("bucket %q is inline: no page of its own to garble", name)
	}
	f, err := os.OpenFile(w.store.Path(), os.O_WRONLY, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, page*pageSize); err != nil {
		w.t.Fatal(err)
	}
}
