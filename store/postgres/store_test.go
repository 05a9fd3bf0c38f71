package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// The tests here are what only PostgreSQL has: several processes on one
// database, row locks, a server that goes away. What every backend must
// do is store/storetest's conformance suite.

// Two handles (two pools, as two nodes have) logging in keys that all
// want one name: exactly one gets it, the others get derived names, and
// no name is held twice.
func TestLoginNameRaceBetweenHandles(t *testing.T) {
	url := pgtest.URL(t)
	a, b := openTest(t, url), openTest(t, url)
	ctx := context.Background()
	const n = 16
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			p, created, err := s.Login(ctx, fmt.Sprintf("SHA256:key%02d", i), "ssh-ed25519", "alice")
			if err != nil || !created {
				t.Errorf("login %d: created=%v, %v", i, created, err)
			}
			names[i] = p.Name
		})
	}
	wg.Wait()
	checkNames(t, "alice", names)
}

func checkNames(t *testing.T, want string, names []string) {
	t.Helper()
	if !slices.Contains(names, want) {
		t.Errorf("nobody got the name asked for: %v", names)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if c := slices.Compact(slices.Clone(sorted)); len(c) != len(names) {
		t.Fatalf("a name was handed out twice: %v", sorted)
	}
}

// The same between two processes: the test binary runs itself twice
// against one database.
func TestLoginNameRaceBetweenProcesses(t *testing.T) {
	if url := os.Getenv("PG_LOGIN_CHILD"); url != "" {
		s := openTest(t, url)
		start, _ := time.Parse(time.RFC3339Nano, os.Getenv("PG_LOGIN_AT"))
		time.Sleep(time.Until(start)) // both processes begin together
		for i := range 10 {
			p, _, err := s.Login(context.Background(), fmt.Sprintf("SHA256:%s-%d", os.Getenv("PG_LOGIN_TAG"), i), "ssh-ed25519", "bob")
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("NAME %s\n", p.Name)
		}
		return
	}
	url := pgtest.URL(t)
	openTest(t, url).Close() // migrate first, so the children race on logins
	at := time.Now().Add(500 * time.Millisecond).Format(time.RFC3339Nano)
	var names []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, tag := range []string{"x", "y"} {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestLoginNameRaceBetweenProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), "PG_LOGIN_CHILD="+url, "PG_LOGIN_AT="+at, "PG_LOGIN_TAG="+tag)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("process %s: %v\n%s", tag, err, out)
			}
			mu.Lock()
			defer mu.Unlock()
			for line := range strings.Lines(string(out)) {
				if n, ok := strings.CutPrefix(strings.TrimSpace(line), "NAME "); ok {
					names = append(names, n)
				}
			}
		})
	}
	wg.Wait()
	if len(names) != 20 {
		t.Fatalf("%d logins reported, want 20: %v", len(names), names)
	}
	checkNames(t, "bob", names)
}

func win(current []store.Rating) ([]store.Rating, error) {
	next := slices.Clone(current)
	for i := range next {
		next[i].Games++
		if i == 0 {
			next[i].Rating += 10
			next[i].Wins++
		} else {
			next[i].Rating -= 10
			next[i].Losses++
		}
	}
	return next, nil
}

func ranked(fps ...string) store.MatchEnd {
	m := store.MatchRecord{Mode: "pong-1v1", Ranked: true, Start: time.Now(), Duration: time.Minute}
	for i, fp := range fps {
		m.Players = append(m.Players, store.MatchPlayer{Fingerprint: fp, Slot: i, Team: i, Place: i + 1})
	}
	return store.MatchEnd{Match: m, Rate: win}
}

// Matches that share a player ending at once on two nodes: the seats'
// rating rows are locked, so every match's update lands on the one
// before it (none lost, with the player's first game among them).
func TestConcurrentMatchEndsLoseNoUpdate(t *testing.T) {
	url := pgtest.URL(t)
	a, b := openTest(t, url), openTest(t, url)
	ctx := context.Background()
	const matches = 12
	var wg sync.WaitGroup
	for i := range matches {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			// "hub" plays everyone, half the time on the other side of
			// the key order, so the lock order is tested too.
			fps := []string{"SHA256:hub", fmt.Sprintf("SHA256:p%02d", i)}
			if i%3 == 0 {
				fps[0], fps[1] = fps[1], fps[0]
			}
			if _, err := s.RecordMatch(ctx, ranked(fps...)); err != nil {
				t.Errorf("match %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	r, found, err := a.Rating(ctx, "pong-1v1", "SHA256:hub")
	if err != nil || !found {
		t.Fatalf("hub: %v %v", found, err)
	}
	if r.Games != matches || r.Wins+r.Losses != matches {
		t.Fatalf("hub has %d games (%d won, %d lost) after %d matches: an update was lost", r.Games, r.Wins, r.Losses, matches)
	}
}

// A match end that fails mid-way (the rating function errs, or the
// caller gives up) leaves nothing: no match, no seat, no replay, no
// rating, no leave strike.
func TestMatchEndFailureWritesNothing(t *testing.T) {
	s := openTest(t, pgtest.URL(t))
	ctx := context.Background()
	end := ranked("SHA256:ann", "SHA256:bob")
	end.Replay = []byte("replay bytes")
	end.Leaves = map[string]store.Leaves{"SHA256:bob": {Strikes: 1, Last: time.Now(), Until: time.Now().Add(time.Hour)}}
	end.Rate = func(current []store.Rating) ([]store.Rating, error) { return nil, errors.New("maths broke") }
	if _, err := s.RecordMatch(ctx, end); err == nil {
		t.Fatal("a failing rate func: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	end.Rate = func(current []store.Rating) ([]store.Rating, error) {
		cancel() // the caller gives up between the reads and the writes
		return win(current)
	}
	if _, err := s.RecordMatch(cctx, end); err == nil {
		t.Fatal("a cancelled context: no error")
	}
	var rows int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM matches) + (SELECT count(*) FROM match_players) +
		(SELECT count(*) FROM replays) + (SELECT count(*) FROM ratings) + (SELECT count(*) FROM leaves)`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatalf("%d rows written by match ends that failed", rows)
	}
	// And the same end, allowed through, writes all of it.
	end.Rate = win
	m, err := s.RecordMatch(ctx, end)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Replay || m.Players[0].RatingAfter != store.InitialRating+10 || m.Players[1].GamesAfter != 1 {
		t.Fatalf("recorded %+v", m)
	}
	leaves, err := s.LoadLeaves(ctx, nil)
	if err != nil || leaves["SHA256:bob"].Strikes != 1 {
		t.Fatalf("leaves %v, %v", leaves, err)
	}
}

// A database that goes away while serving: writes fail with
// store.ErrCannotSave (what the server turns into "cannot save right
// now"), Health says so, and once it is back the same handle works again.
func TestDatabaseGoneIsCannotSave(t *testing.T) {
	url := pgtest.URL(t)
	s := openTest(t, url)
	ctx := context.Background()
	if _, _, err := s.Login(ctx, "SHA256:ann", "ssh-ed25519", "ann"); err != nil {
		t.Fatal(err)
	}
	var db string
	if err := s.pool.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	// Refuse new connections to the database and end the open ones: to
	// this handle the database is gone.
	execSQL(t, adminURL(t), "ALTER DATABASE "+quote(db)+" WITH ALLOW_CONNECTIONS false")
	execSQL(t, adminURL(t), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", db)
	_, _, err := s.Login(ctx, "SHA256:cat", "ssh-ed25519", "cat")
	if !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("login of a new player with the database gone: %v, want ErrCannotSave", err)
	}
	if _, err := s.RecordMatch(ctx, ranked("SHA256:ann", "SHA256:bob")); !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("match end with the database gone: %v, want ErrCannotSave", err)
	}
	if err := s.Health(ctx); !errors.Is(err, store.ErrCannotSave) {
		t.Errorf("health with the database gone: %v, want ErrCannotSave", err)
	}
	execSQL(t, adminURL(t), "ALTER DATABASE "+quote(db)+" WITH ALLOW_CONNECTIONS true")
	if err := s.Health(ctx); err != nil {
		t.Errorf("health once it is back: %v", err)
	}
	if _, _, err := s.Login(ctx, "SHA256:cat", "ssh-ed25519", "cat"); err != nil {
		t.Errorf("login once it is back: %v", err)
	}
}

func quote(ident string) string { return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"` }

// adminURL is the test server's own database, reachable while the test
// database refuses connections.
func adminURL(t *testing.T) string {
	return os.Getenv(pgtest.EnvURL)
}
