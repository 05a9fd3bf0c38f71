package commands_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/termarena/termarena/commands"
	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/store"
)

var (
	asAlice = commands.Caller{ID: alice, Name: "alice"}
	asGuest = commands.Caller{Name: "guest-1234", Guest: true}
)

// check runs each case and compares what a script would see: the exit
// code, and stdout and stderr (exactly when want is exact, else as
// substrings).
type cmdCase struct {
	name      string
	who       commands.Caller
	args      []string
	code      int
	stdout    []string // each must appear, in order
	exact     string   // when set, stdout must be exactly this
	stderr    string   // must appear
	notStdout string   // must not appear
}

func check(t *testing.T, f commands.Func, d commands.Deps, cases []cmdCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, f, d, c.who, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			if c.exact != "" && r.stdout != c.exact {
				t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, c.exact)
			}
			rest := r.stdout
			for _, s := range c.stdout {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Errorf("stdout lacks %q (in order):\n%s", s, r.stdout)
					break
				}
				rest = rest[i+len(s):]
			}
			if c.notStdout != "" && strings.Contains(r.stdout, c.notStdout) {
				t.Errorf("stdout has %q:\n%s", c.notStdout, r.stdout)
			}
			if !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, r.stderr)
			}
			if c.code != commands.ExitOK && r.stdout != "" {
				t.Errorf("a failing command wrote to stdout:\n%s", r.stdout)
			}
		})
	}
}

func TestLeaderboard(t *testing.T) {
	empty := newWorld(t)
	check(t, commands.Leaderboard, empty.deps, []cmdCase{
		{name: "empty", who: asAlice, code: 0, exact: "no established pong-1v1 ratings yet (a rating is established once its ± is under 110, after about ten games) — play: ssh -t HOST play pong-1v1\n"},
		{name: "empty json", who: asAlice, args: []string{"--json"}, code: 0, exact: "{\n  \"mode\": \"pong-1v1\",\n  \"players\": [],\n  \"ranked\": 0\n}\n"},
	})

	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(bob, alice, false)
	// carol and dave have one game each, still provisional (± 300): not
	// on the leaderboard, which lists established ratings (± under 110).
	w.login(carol, "carol")
	w.login(dave, "dave")
	w.rankedWinDev(carol, dave, false, 300)
	check(t, commands.Leaderboard, w.deps, []cmdCase{
		{name: "text", who: asGuest, code: 0, stdout: []string{"RANK", "NAME", "RATING", "±", "GAMES", "WIN%",
			"   1  bob                  1520    80      1   100%", "   2  alice                1480    80      1     0%",
			"2 established players in pong-1v1"}, notStdout: "carol"},
		{name: "around", who: asGuest, args: []string{"--around", "alice"}, code: 0, stdout: []string{
			"   1  bob                  1520    80", ">  2  alice                1480    80", "2 established players"}},
		{name: "around json", who: asGuest, args: []string{"--around=alice", "--json"}, code: 0, stdout: []string{
			`"name": "bob"`, `"name": "alice"`, `"around": "alice"`, `"ranked": 2`}},
		{name: "around a provisional player", who: asGuest, args: []string{"--around", "carol"}, code: 1,
			stderr: "carol is not on the pong-1v1 leaderboard: it lists established ratings (± under 110), and theirs is provisional or not there yet"},
		{name: "around nobody", who: asGuest, args: []string{"--around", "zed"}, code: 1, stderr: `no player is named "zed"`},
		{name: "around and limit", who: asGuest, args: []string{"--around", "bob", "--limit", "3"}, code: 2, stderr: "--around and --limit cannot go together"},
		{name: "around without a name", who: asGuest, args: []string{"--around="}, code: 2, stderr: "--around needs a player name"},
		{name: "json", who: asGuest, args: []string{"--json", "--limit", "1"}, code: 0, exact: `{
  "mode": "pong-1v1",
  "players": [
    {
      "rank": 1,
      "name": "bob",
      "rating": 1520,
      "deviation": 80,
      "provisional": false,
      "games": 1,
      "wins": 1,
      "losses": 0,
      "draws": 0,
      "win_pct": 100
    }
  ],
  "ranked": 2
}
`},
		{name: "short mode", who: asGuest, args: []string{"--mode", "1v1"}, code: 0, stdout: []string{"bob"}},
		{name: "other mode is empty", who: asGuest, args: []string{"--mode=pong-ffa4"}, code: 0, stdout: []string{"no established pong-ffa4 ratings yet"}},
		{name: "unknown mode", who: asGuest, args: []string{"--mode", "chess"}, code: 2, stderr: `unknown mode "chess": want pong-1v1, pong-2v2, pong-ffa4`},
		{name: "bad limit", who: asGuest, args: []string{"--limit", "0"}, code: 2, stderr: "--limit \"0\": want a number from 1 to 1000"},
		{name: "stray argument", who: asGuest, args: []string{"bob"}, code: 2, stderr: `unexpected argument "bob"`},
		// The mode named as play and practice name it, without --mode.
		{name: "mode by position", who: asGuest, args: []string{"pong-1v1", "--json"}, code: 0, stdout: []string{`"mode": "pong-1v1"`, `"name": "bob"`}},
		{name: "short mode by position", who: asGuest, args: []string{"ffa4"}, code: 0, stdout: []string{"no established pong-ffa4 ratings yet"}},
		{name: "mode by position and by flag", who: asGuest, args: []string{"pong-2v2", "--mode", "1v1"}, code: 2, stderr: `unexpected argument "pong-2v2"`},
		{name: "mode and a stray argument", who: asGuest, args: []string{"1v1", "bob"}, code: 2, stderr: `unexpected argument "bob"`},
	})
}

func TestProfile(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	id := w.rankedWin(bob, alice, true)
	check(t, commands.Profile, w.deps, []cmdCase{
		{name: "own", who: asAlice, code: 0, stdout: []string{"name         alice", "first seen   2026-11-22",
			"MODE        RATING        RANK         GAMES     W     L     D",
			"pong-1v1    1480 ± 80     #2 of 2          1     0     1     0", "recent matches", "2026-11-22 14:04  2nd        -20     bob 5, alice 3"}},
		{name: "named, from the named player's side", who: asGuest, args: []string{"bob"}, code: 0,
			stdout: []string{"name         bob", "won        +20     bob 5, alice 3"}},
		{name: "json", who: asAlice, args: []string{"--json"}, code: 0, exact: `{
  "name": "alice",
  "first_seen": "2026-11-22T13:51:00Z",
  "ratings": [
    {
      "mode": "pong-1v1",
      "rating": 1480,
      "rating_exact": 1480,
      "deviation": 80,
      "display": "1480",
      "provisional": false,
      "rank": 2,
      "ranked": 2,
      "games": 1,
      "wins": 0,
      "losses": 1,
      "draws": 0
    }
  ],
  "matches": [
    {
      "id": ` + itoa(id) + `,
      "mode": "pong-1v1",
      "ranked": true,
      "aborted": false,
      "start": "2026-11-22T14:04:00Z",
      "duration_seconds": 32.5,
      "players": [
        {
          "name": "bob",
          "place": 1,
          "score": 5,
          "rating_before": 1500,
          "rating_after": 1520,
          "left": false,
          "deviation_before": 500,
          "deviation_after": 80,
          "rank": 1
        },
        {
          "name": "alice",
          "place": 2,
          "score": 3,
          "rating_before": 1500,
          "rating_after": 1480,
          "left": false,
          "deviation_before": 500,
          "deviation_after": 80,
          "rank": 2
        }
      ],
      "replay": true
    }
  ]
}
`},
		{name: "unknown player", who: asAlice, args: []string{"carol"}, code: 1, stderr: `no player named "carol"`},
		{name: "not a name", who: asAlice, args: []string{"no such name!"}, code: 1, stderr: "no player named"},
		{name: "guest has none", who: asGuest, code: 1, stderr: "guests have no profile"},
		{name: "guest names one", who: asGuest, args: []string{"alice"}, code: 0, stdout: []string{"name         alice"}},
		{name: "two names", who: asAlice, args: []string{"alice", "bob"}, code: 2, stderr: `unexpected argument "bob"`},
		{name: "unknown flag", who: asAlice, args: []string{"--jsn"}, code: 2, stderr: "usage: profile [NAME] [--json]"},
	})
}

func TestMatchesAndReplays(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.login("SHA256:carol", "carol")
	first := w.rankedWin(bob, alice, true)
	second := w.rankedWin(alice, bob, false)
	check(t, commands.Matches, w.deps, []cmdCase{
		{name: "own, newest first", who: asAlice, code: 0, stdout: []string{"ID", "RESULT",
			itoa(second) + "  pong-1v1", "won", "+20", itoa(first) + "▶  pong-1v1", "2nd", "-20"}},
		{name: "limit", who: asAlice, args: []string{"--limit", "1"}, code: 0, stdout: []string{itoa(second)}, notStdout: itoa(first) + "▶"},
		{name: "json list", who: asAlice, args: []string{"bob", "--json", "--limit=1"}, code: 0, stdout: []string{"[\n  {\n    \"id\": " + itoa(second) + ","}},
		{name: "none yet", who: asGuest, args: []string{"carol"}, code: 0, exact: "carol has no matches yet\n"},
		{name: "none yet json", who: asGuest, args: []string{"carol", "--json"}, code: 0, exact: "[]\n"},
		{name: "guest's own", who: asGuest, code: 1, stderr: "guests have no profile"},
		{name: "bad limit", who: asAlice, args: []string{"--limit", "201"}, code: 2, stderr: "usage: matches [NAME] [--limit N] [--json]"},
	})
	check(t, commands.Replays, w.deps, []cmdCase{
		{name: "server's, only with a replay", who: asGuest, code: 0, stdout: []string{itoa(first) + "▶", "watch one: ssh -t HOST replay ID"},
			notStdout: "alice 5"},
		{name: "a player's", who: asGuest, args: []string{"alice"}, code: 0, stdout: []string{itoa(first) + "▶", "2nd"}},
		{name: "none", who: asGuest, args: []string{"carol"}, code: 0, exact: "carol has no recorded matches\n"},
		{name: "json", who: asGuest, args: []string{"--json"}, code: 0, stdout: []string{"\"id\": " + itoa(first), "\"replay\": true"}},
		{name: "unknown player", who: asGuest, args: []string{"dave"}, code: 1, stderr: `no player named "dave"`},
	})
	empty := newWorld(t)
	check(t, commands.Replays, empty.deps, []cmdCase{
		{name: "nothing recorded", who: asGuest, code: 0, exact: "no recorded matches on this server yet\n"},
		{name: "nothing recorded json", who: asGuest, args: []string{"--json"}, code: 0, exact: "[]\n"},
	})
}

func TestRooms(t *testing.T) {
	w := newWorld(t)
	check(t, commands.Rooms, w.deps, []cmdCase{
		{name: "none", who: asGuest, code: 0, exact: "no open rooms — create one in the lobby: ssh -t HOST\n"},
		{name: "none json", who: asGuest, args: []string{"--json"}, code: 0, exact: "[]\n"},
	})
	r, err := w.rooms.Create("pong", "1v1", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.rooms.Create("pong", "ffa", true); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Join(context.Background(), game.Player{ID: alice, Name: "alice"}, 0); err != nil {
		t.Fatal(err)
	}
	// The room publishes the seat at its next tick.
	waitFor(t, func() bool { return len(r.Info().Players) == 1 })
	check(t, commands.Rooms, w.deps, []cmdCase{
		{name: "public only", who: asGuest, code: 0, exact: "ROOM   MODE  PHASE      SEATS   PLAYERS\nr1     1v1   waiting    1/2     alice\n"},
		{name: "json", who: asGuest, args: []string{"--json"}, code: 0, exact: `[
  {
    "id": "r1",
    "game": "pong",
    "mode": "1v1",
    "phase": "waiting",
    "players": [
      "alice"
    ],
    "seats": 2
  }
]
`},
		{name: "arguments", who: asGuest, args: []string{"r1"}, code: 2, stderr: "rooms takes no arguments (got \"r1\")\nusage: rooms [--json]"},
	})
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestWhoami(t *testing.T) {
	w := newWorld(t)
	key := commands.Caller{ID: alice, Name: "alice", KeyType: "ssh-ed25519", FirstSeen: w.start, Admin: true, NameNote: "alice_ was taken"}
	check(t, commands.Whoami, w.deps, []cmdCase{
		{name: "key", who: key, code: 0, exact: "name         alice\n             (alice_ was taken)\nfingerprint  SHA256:alice\n" +
			"key type     ssh-ed25519\nfirst seen   2026-11-22 13:51 UTC\nrole         admin\n"},
		{name: "key json", who: key, args: []string{"--json"}, code: 0, exact: `{
  "name": "alice",
  "guest": false,
  "fingerprint": "SHA256:alice",
  "key_type": "ssh-ed25519",
  "first_seen": "2026-11-22T13:51:00Z",
  "admin": true,
  "name_note": "alice_ was taken"
}
`},
		{name: "guest", who: asGuest, code: 0, exact: "name         guest-1234\naccount      guest (no SSH key offered: nothing is saved)\n"},
		{name: "guest json", who: commands.Caller{ID: "guest:01", Name: "guest-1234", Guest: true}, args: []string{"--json"}, code: 0,
			exact: "{\n  \"name\": \"guest-1234\",\n  \"guest\": true,\n  \"admin\": false\n}\n"},
		{name: "arguments", who: asGuest, args: []string{"--jsn"}, code: 2, stderr: "whoami takes no arguments (got \"--jsn\")\nusage: whoami [--json]"},
	})
}

func TestRename(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.deps.Now = func() time.Time { return w.start.Add(30 * time.Second) }
	check(t, commands.Rename, w.deps, []cmdCase{
		{name: "guest", who: asGuest, args: []string{"carol"}, code: 77, stderr: "guests have no account to rename"},
		{name: "no name", who: asAlice, code: 2, stderr: "usage: rename NAME"},
		{name: "breaks the rules", who: asAlice, args: []string{"-x"}, code: 2, stderr: "termarena: rename: "},
		{name: "reserved", who: asAlice, args: []string{"guest7"}, code: 2, stderr: "termarena: rename: "},
		{name: "taken", who: asAlice, args: []string{"BOB"}, code: 1, stderr: "termarena: rename: bob is taken"},
		{name: "same name", who: asAlice, args: []string{"alice"}, code: 0, exact: "you are already alice\n"},
		{name: "renamed", who: asAlice, args: []string{"Alicia"}, code: 0, exact: "you are now alicia (was alice)\nsessions open now keep the old name until they reconnect\n"},
		{name: "once a day", who: commands.Caller{ID: alice, Name: "alicia"}, args: []string{"ally"}, code: 1, stderr: "you can rename once a day; next in 23h59m\n"},
		{name: "admins may again", who: commands.Caller{ID: alice, Name: "alicia", Admin: true}, args: []string{"ally"}, code: 0, stdout: []string{"you are now ally (was alicia)"}},
	})
	if _, err := w.deps.Service.PlayerNamed(context.Background(), "ally"); err != nil {
		t.Errorf("the new name does not find the player: %v", err)
	}
}

// A practice match's mode ("practice-1v1", 12 letters) overflowed the
// MODE column (11), pushing its row's WHEN, RESULT and players out of
// line with the others'. Every row of a history mixing ranked, casual and
// practice matches now starts each column where the header does and
// fits an 80-column terminal.
func TestMatchesColumnsHoldPracticeModesAt80Columns(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(alice, bob, true)
	for _, mode := range []string{"practice-1v1", "casual-1v1"} {
		if _, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: mode, Room: "r2", Start: w.start.Add(20 * time.Minute),
			Duration: 40 * time.Second, Players: []store.MatchPlayer{
				{Fingerprint: alice, Slot: 0, Place: 2, Score: 7},
				{Name: "bot-L5", Slot: 1, Place: 1, Score: 11},
			}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		run  func(context.Context, commands.Deps, commands.Caller, []string, io.Writer, io.Writer) int
		who  commands.Caller
		args []string
	}{
		{"matches", commands.Matches, asAlice, nil},
		{"matches alice", commands.Matches, asGuest, []string{"alice"}},
	} {
		var out, errb bytes.Buffer
		if code := c.run(context.Background(), w.deps, c.who, c.args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errb.String())
		}
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		head := []rune(lines[0])
		col := func(l []rune, word string) int { return strings.Index(string(l), word) }
		whenAt := utf8.RuneCountInString(string(head[:col(head, "WHEN")]))
		for _, l := range lines {
			r := []rune(l)
			if len(r) > 80 {
				t.Errorf("%s: %d columns, wider than 80:\n%s", c.name, len(r), l)
			}
			// WHEN starts with the year in every row.
			if len(r) <= whenAt+4 || (l != lines[0] && string(r[whenAt:whenAt+4]) != "2026") || r[whenAt-1] != ' ' {
				t.Errorf("%s: WHEN not at column %d:\n%s\n%s", c.name, whenAt, lines[0], l)
			}
		}
		if !strings.Contains(out.String(), "practice-1v1") || !strings.Contains(out.String(), "casual-1v1") {
			t.Errorf("%s: the practice and casual matches are not listed:\n%s", c.name, out.String())
		}
	}
}

// "abandoned" (9 letters) overflowed the RESULT column (7): that row's
// RATING and players stood two columns right of every other row's. Every
// row's players now start where the header's PLAYERS does.
func TestMatchesAbandonedRowKeepsColumns(t *testing.T) {
	w := newWorld(t)
	w.login(alice, "alice")
	w.login(bob, "bob")
	w.rankedWin(alice, bob, true)
	if _, err := w.store.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "practice-1v1", Room: "r2", Start: w.start.Add(20 * time.Minute),
		Duration: 3 * time.Second, Forfeit: true, Players: []store.MatchPlayer{
			{Fingerprint: alice, Slot: 0, Place: 2},
			{Name: "bot-L1", Slot: 1, Place: 1},
		}}}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := commands.Matches(context.Background(), w.deps, asAlice, nil, &out, &errb); code != 0 {
		t.Fatalf("matches: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "abandoned") {
		t.Fatalf("want the abandoned practice match above the ranked win:\n%s", out.String())
	}
	at := utf8.RuneCountInString(lines[0][:strings.Index(lines[0], "PLAYERS")])
	for _, l := range lines[1:] {
		r := []rune(l)
		if len(r) <= at || r[at-1] != ' ' || !strings.HasPrefix(string(r[at:]), "alice ") {
			t.Errorf("the players do not start under PLAYERS (column %d):\n%s\n%s", at, lines[0], l)
		}
	}
}
