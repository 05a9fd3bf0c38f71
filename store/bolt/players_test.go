package bolt

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
)

func TestLoginDefaultName(t *testing.T) {
	const fp = "SHA256:newcomer"
	fallback := store.FallbackName(fp)
	tests := []struct {
		name  string
		taken []string // names held by other players beforehand
		user  string
		want  string
	}{
		{name: "valid user", user: "bob", want: "bob"},
		{name: "upper case user", user: "Bob", want: "bob"},
		{name: "16 chars", user: "abcdefghijklmnop", want: "abcdefghijklmnop"},
		{name: "reserved user", user: "root", want: fallback},
		{name: "reserved user upper case", user: "Admin", want: fallback},
		{name: "guest prefix", user: "guest42", want: fallback},
		{name: "bad chars", user: "Bob Smith!", want: "bobsmith"},
		{name: "too long", user: "averyveryverylongusername", want: "averyveryve"},
		{name: "leading dash", user: "-bob", want: "bob"},
		{name: "control chars", user: "bob\x1b[2J", want: "bob2j"},
		{name: "derived base reserved", user: "Root!", want: fallback},
		{name: "empty user", user: "", want: fallback},
		{name: "one char", user: "x", want: fallback},
		{name: "nothing usable", user: "!!!", want: fallback},
		{name: "non-ascii only", user: "日本語", want: fallback},
		{name: "collision", taken: []string{"bob"}, user: "bob", want: "bob-2"},
		{name: "collisions", taken: []string{"bob", "bob-2"}, user: "Bob", want: "bob-3"},
		{name: "derived collision", taken: []string{"bobsmith"}, user: "Bob Smith!", want: "bobsmith-2"},
		{name: "long user taken", taken: []string{"abcdefghijklmnop", "abcdefghijk"}, user: "abcdefghijklmnop", want: "abcdefghijk-2"},
		{name: "fallback collision", taken: []string{fallback}, user: "", want: fallback + "-2"},
		{name: "fallback collisions", taken: []string{fallback, fallback + "-2"}, user: "root", want: fallback + "-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, dbPath(t), Options{})
			for i, n := range tt.taken {
				if p := mustLogin(t, s, fmt.Sprintf("SHA256:other%d", i), n); p.Name != n {
					t.Fatalf("setup: wanted %q, got %q", n, p.Name)
				}
			}
			p, created, err := s.Login(ctx, fp, "ssh-ed25519", tt.user)
			if err != nil {
				t.Fatalf("Login: %v", err)
			}
			if !created {
				t.Error("created = false on first sight")
			}
			if p.Name != tt.want {
				t.Errorf("name for user %q = %q, want %q", tt.user, p.Name, tt.want)
			}
			checkIndex(t, s)
		})
	}
}

func TestFallbackNameDeterministic(t *testing.T) {
	a, b := store.FallbackName("SHA256:one"), store.FallbackName("SHA256:one")
	if a != b {
		t.Errorf("fallbackName not deterministic: %q vs %q", a, b)
	}
	if len(a) != len("player-0000") || !strings.HasPrefix(a, "player-") {
		t.Errorf("fallbackName = %q", a)
	}
	for _, c := range strings.TrimPrefix(a, "player-") {
		if !strings.ContainsRune("0123456789abcdef", c) {
			t.Errorf("fallbackName = %q, want lower-case hex after player-", a)
		}
	}
}

func TestLoginAgainKeepsNameAndMovesLastSeen(t *testing.T) {
	clock := newClock()
	s := openTest(t, dbPath(t), Options{Now: clock.Now})
	t0 := clock.Now()

	first, created, err := s.Login(ctx, "SHA256:alice", "ssh-ed25519", "alice")
	if err != nil || !created {
		t.Fatalf("first Login: created=%v err=%v", created, err)
	}
	if !first.FirstSeen.Equal(t0) || !first.LastSeen.Equal(t0) {
		t.Errorf("first login times = %v / %v, want %v", first.FirstSeen, first.LastSeen, t0)
	}

	clock.Advance(90 * time.Minute)
	t1 := clock.Now()
	again, created, err := s.Login(ctx, "SHA256:alice", "ssh-rsa", "Someone-Else")
	if err != nil {
		t.Fatalf("second Login: %v", err)
	}
	if created {
		t.Error("created = true for a known fingerprint")
	}
	if again.Name != "alice" {
		t.Errorf("name changed on re-login: %q", again.Name)
	}
	if again.KeyType != "ssh-ed25519" {
		t.Errorf("key type changed on re-login: %q", again.KeyType)
	}
	if !again.FirstSeen.Equal(t0) {
		t.Errorf("FirstSeen = %v, want %v", again.FirstSeen, t0)
	}
	if !again.LastSeen.Equal(t1) {
		t.Errorf("LastSeen = %v, want %v", again.LastSeen, t1)
	}

	stored, err := s.PlayerByFingerprint(ctx, "SHA256:alice")
	if err != nil {
		t.Fatal(err)
	}
	if stored != again {
		t.Errorf("stored %+v, Login returned %+v", stored, again)
	}
	if n, _ := s.CountPlayers(ctx); n != 1 {
		t.Errorf("CountPlayers = %d, want 1", n)
	}
}

func TestLoginRejectsBadFingerprint(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	for _, fp := range []string{"", "SHA256:a b", "SHA256:\x1b", strings.Repeat("x", 200)} {
		if _, _, err := s.Login(ctx, fp, "ssh-ed25519", "bob"); err == nil {
			t.Errorf("Login(%q) succeeded", fp)
		}
	}
	if n, _ := s.CountPlayers(ctx); n != 0 {
		t.Errorf("CountPlayers = %d after rejected logins", n)
	}
}

func TestLoginCleansKeyType(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	p, _, err := s.Login(ctx, "SHA256:k", "ssh-ed25519\x1b[31m\n"+strings.Repeat("z", 100), "kay")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(p.KeyType, "\x1b\n") || len(p.KeyType) > store.MaxKeyTypeLen {
		t.Errorf("KeyType not cleaned: %q", p.KeyType)
	}
}

func TestConcurrentFirstLoginsGetDistinctNames(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	const n = 50
	players := make([]store.Player, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p, created, err := s.Login(ctx, fmt.Sprintf("SHA256:bob%02d", i), "ssh-ed25519", "bob")
			if err != nil {
				t.Errorf("Login %d: %v", i, err)
				return
			}
			if !created {
				t.Errorf("Login %d: created = false", i)
			}
			players[i] = p
		})
	}
	wg.Wait()

	seen := map[string]string{}
	bobs := 0
	for _, p := range players {
		if prev, ok := seen[p.Name]; ok {
			t.Errorf("name %q given to both %s and %s", p.Name, prev, p.Fingerprint)
		}
		seen[p.Name] = p.Fingerprint
		if p.Name == "bob" {
			bobs++
		}
		if err := store.ValidateName(p.Name); err != nil {
			t.Errorf("invalid name %q: %v", p.Name, err)
		}
		got, err := s.PlayerByName(ctx, p.Name)
		if err != nil || got.Fingerprint != p.Fingerprint {
			t.Errorf("PlayerByName(%q) = %v, %v; want %s", p.Name, got.Fingerprint, err, p.Fingerprint)
		}
	}
	if bobs != 1 {
		t.Errorf("%d players named bob, want exactly 1", bobs)
	}
	if c, err := s.CountPlayers(ctx); err != nil || c != n {
		t.Errorf("CountPlayers = %d, %v; want %d", c, err, n)
	}
	checkIndex(t, s)
}

func TestPlayerLookups(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	bob := mustLogin(t, s, "SHA256:bob", "Bob")

	for _, q := range []string{"bob", "BOB", "bOb"} {
		p, err := s.PlayerByName(ctx, q)
		if err != nil || p.Fingerprint != bob.Fingerprint {
			t.Errorf("PlayerByName(%q) = %+v, %v", q, p, err)
		}
	}
	for _, q := range []string{"alice", "", strings.Repeat("b", 1000)} {
		if _, err := s.PlayerByName(ctx, q); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("PlayerByName(%q) err = %v, want ErrNotFound", q, err)
		}
	}
	if _, err := s.PlayerByFingerprint(ctx, "SHA256:nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PlayerByFingerprint(unknown) err = %v, want ErrNotFound", err)
	}
	if _, err := s.PlayerByFingerprint(ctx, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PlayerByFingerprint(\"\") err = %v, want ErrNotFound", err)
	}
}

func TestRename(t *testing.T) {
	s := openTest(t, dbPath(t), Options{})
	bob := mustLogin(t, s, "SHA256:bob", "bob")
	mustLogin(t, s, "SHA256:carol", "carol")

	t.Run("taken", func(t *testing.T) {
		_, err := s.Rename(ctx, bob.Fingerprint, "Carol", 0)
		if !errors.Is(err, store.ErrNameTaken) {
			t.Fatalf("err = %v, want ErrNameTaken", err)
		}
		if p, _ := s.PlayerByFingerprint(ctx, bob.Fingerprint); p.Name != "bob" {
			t.Errorf("name after failed rename = %q", p.Name)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for _, n := range []string{"x", "bob smith", "admin", "guest-1234", "-bob"} {
			_, err := s.Rename(ctx, bob.Fingerprint, n, 0)
			if !errors.Is(err, store.ErrInvalidName) {
				t.Errorf("Rename(%q) err = %v, want ErrInvalidName", n, err)
				continue
			}
			if strings.HasPrefix(err.Error(), "store:") {
				t.Errorf("Rename(%q) err = %q: validation errors should be fit to show a player", n, err)
			}
		}
	})

	t.Run("unknown player", func(t *testing.T) {
		if _, err := s.Rename(ctx, "SHA256:ghost", "ghost", 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
		if _, err := s.PlayerByName(ctx, "ghost"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("rename of unknown player claimed the name: %v", err)
		}
	})

	t.Run("same name is a no-op", func(t *testing.T) {
		p, err := s.Rename(ctx, bob.Fingerprint, "BOB", 0)
		if err != nil || p.Name != "bob" {
			t.Errorf("Rename to own name = %+v, %v", p, err)
		}
	})

	t.Run("index updated", func(t *testing.T) {
		p, err := s.Rename(ctx, bob.Fingerprint, "Bobby", 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "bobby" {
			t.Errorf("Name = %q, want bobby", p.Name)
		}
		if got, err := s.PlayerByName(ctx, "bobby"); err != nil || got.Fingerprint != bob.Fingerprint {
			t.Errorf("PlayerByName(bobby) = %+v, %v", got, err)
		}
		if _, err := s.PlayerByName(ctx, "bob"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("old name still resolves: %v", err)
		}
		if got, _ := s.PlayerByFingerprint(ctx, bob.Fingerprint); got.Name != "bobby" || !got.FirstSeen.Equal(bob.FirstSeen) {
			t.Errorf("stored player = %+v", got)
		}
		checkIndex(t, s)

		// The freed name is usable again, by a new player's default too.
		if newBob := mustLogin(t, s, "SHA256:bob2", "bob"); newBob.Name != "bob" {
			t.Errorf("freed name not reused: got %q", newBob.Name)
		}
		if _, err := s.Rename(ctx, "SHA256:carol", "bobby", 0); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("rename onto the new name err = %v, want ErrNameTaken", err)
		}
		checkIndex(t, s)
	})
}

// A player renames at most once per interval; each rename is in the audit
// log, and an unlimited rename (every 0) is still recorded.
func TestRenameLimitAndAudit(t *testing.T) {
	clk := newClock()
	s := openPlayers(t, Options{Now: clk.Now})
	if _, err := s.Rename(ctx, fpBob, "bobby", 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	_, err := s.Rename(ctx, fpBob, "robert", 24*time.Hour)
	var soon *store.RenameTooSoonError
	if !errors.As(err, &soon) || !soon.Next.Equal(clk.Now().Add(23*time.Hour)) {
		t.Fatalf("second rename within a day: %v", err)
	}
	if p, _ := s.PlayerByFingerprint(ctx, fpBob); p.Name != "bobby" {
		t.Fatalf("name after a refused rename: %q", p.Name)
	}
	if _, err := s.Rename(ctx, fpBob, "robert", 0); err != nil {
		t.Fatalf("unlimited rename: %v", err)
	}
	clk.Advance(24 * time.Hour)
	if _, err := s.Rename(ctx, fpBob, "bob", 24*time.Hour); err != nil {
		t.Fatalf("rename a day later: %v", err)
	}
	log, err := s.AuditLog(ctx, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Action+" "+e.Actor+"→"+e.Target)
	}
	if want := []string{"rename robert→bob", "rename bobby→robert", "rename bob→bobby"}; !slices.Equal(got, want) {
		t.Fatalf("audit %q, want %q", got, want)
	}
}
