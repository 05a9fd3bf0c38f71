package server_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// onePointPong is Pong where nobody defending ends the match at once.
func onePointPong(countdown time.Duration) lobby.RoomsConfig {
	return lobby.RoomsConfig{
		Room: game.RoomConfig{Countdown: countdown},
		Games: game.Catalog{pong.Kind{Configure: func(m pong.Mode) pong.Config {
			c := pong.DefaultConfig(m)
			c.PointsToWin, c.Lives = 1, 1
			return c
		}}},
	}
}

// The real server on PostgreSQL: login, rename, a ranked match to the
// end, a ban and the match's replay, then a restart (on another, empty
// data dir: nothing comes from there) that keeps all of it.
func TestPostgresServerKeepsEverythingAcrossRestart(t *testing.T) {
	url := pgtest.URL(t)
	adminKey, annKey, benKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}
	h := startOnStore(t, t.TempDir(), url, admins, onePointPong(time.Second))

	if r := sshtest.Run(t, h.Addr, "ann", annKey, "rename annie"); r.Code != 0 {
		t.Fatalf("rename: %+v", r)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", benKey)), 80, 24, "play 1v1")
	for _, tm := range []*sshtest.Term{ann, ben} {
		tm.WaitFor(30*time.Second, "game over")
		tm.WaitFor(wait, "+241", "-241") // the result saved and rated
	}
	ann.Close()
	ben.Close()
	if r := sshtest.Run(t, h.Addr, "root", adminKey, "admin ban ben 1h cheating"); r.Code != 0 {
		t.Fatalf("admin ban: %+v", r)
	}
	before := profileJSON(t, h.Addr, "annie")
	if len(before.Matches) != 1 {
		t.Fatalf("annie's profile before the restart: %+v", before)
	}
	h.Stop()

	h = startOnStore(t, t.TempDir(), url, admins, onePointPong(time.Second))
	if r := sshtest.Run(t, h.Addr, "ann", annKey, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "annie") {
		t.Fatalf("whoami after the restart: %+v", r)
	}
	after := profileJSON(t, h.Addr, "annie")
	if len(after.Ratings) != 1 || after.Ratings[0].Games != 1 || after.Ratings[0].Exact != before.Ratings[0].Exact ||
		len(after.Matches) != 1 || after.Matches[0].ID != before.Matches[0].ID {
		t.Fatalf("annie's profile after the restart: %+v\nbefore: %+v", after, before)
	}
	if r := sshtest.Run(t, h.Addr, "ben", benKey, "whoami"); r.Code != server.ExitDenied || !strings.Contains(r.Stderr, "cheating") {
		t.Fatalf("ben after the restart: %+v, want refused (77) with the ban's reason", r)
	}
	id := after.Matches[0].ID
	data, err := h.App.Store.Replay(context.Background(), id)
	if err != nil || len(data) == 0 {
		t.Fatalf("the match's replay after the restart: %d bytes, %v", len(data), err)
	}
	if r := sshtest.Run(t, h.Addr, "root", adminKey, "admin audit"); r.Code != 0 || !strings.Contains(r.Stdout, "ban") || !strings.Contains(r.Stdout, "rename") {
		t.Fatalf("the audit log after the restart: %+v", r)
	}
}

// The database goes away in the middle of a ranked match: the match plays
// on to its end, the players are told the result could not be saved,
// and the server answers a command that needs the database with a clear
// message instead of hanging; once the database is back, it saves again.
func TestPostgresGoneMidMatchPlayGoesOn(t *testing.T) {
	url := pgtest.URL(t)
	h := startOnStore(t, t.TempDir(), url, nil, onePointPong(3*time.Second))
	annKey, benKey := sshtest.NewKey(t), sshtest.NewKey(t)
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", benKey)), 80, 24, "play 1v1")
	ann.WaitFor(wait, "ranked")

	db := databaseOf(t, url)
	admin := os.Getenv(pgtest.EnvURL)
	sqlExec(t, admin, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH ALLOW_CONNECTIONS false")
	sqlExec(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+db+"'")
	for _, tm := range []*sshtest.Term{ann, ben} {
		tm.WaitFor(30*time.Second, "game over")
		tm.WaitFor(wait, "not saved")
	}
	r := sshtest.Run(t, h.Addr, "ann", annKey, "profile ann")
	if out := r.Stderr + r.Stdout; r.Code == 0 || !(strings.Contains(out, "try again") || strings.Contains(out, "cannot")) {
		t.Errorf("profile with the database gone: %+v, want a failure saying so", r)
	}

	sqlExec(t, admin, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH ALLOW_CONNECTIONS true")
	waitUntil(t, "the server to reach the database again", wait, func() bool {
		return sshtest.Run(t, h.Addr, "ann", annKey, "profile ann").Code == 0
	})
}

type pgProfile struct {
	Name    string
	Ratings []struct {
		Mode  string
		Exact float64 `json:"rating_exact"`
		Games int
	}
	Matches []struct{ ID uint64 }
}

func profileJSON(t *testing.T, addr, name string) pgProfile {
	t.Helper()
	r := sshtest.Run(t, addr, "someone", sshtest.NewKey(t), "profile "+name+" --json")
	if r.Code != 0 {
		t.Fatalf("profile %s: %+v", name, r)
	}
	var p pgProfile
	if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	return p
}

func databaseOf(t *testing.T, url string) string {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var db string
	if err := c.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	return db
}

func sqlExec(t *testing.T, url, q string) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
