package server

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// Identity is who a session belongs to. Keyed players are identified by the
// SHA256 fingerprint of the key that completed authentication; guests by a
// random id that is never stored.
type Identity struct {
	ID        string // fingerprint, or "guest:<hex>"
	Name      string
	KeyType   string
	Guest     bool
	Admin     bool
	Role      string // "moderator" when promoted by an admin
	FirstSeen time.Time
	// NameNote, at a player's first login only, says why they did not get
	// the name they asked for (their SSH user name): it was taken or is
	// not a valid name. "" otherwise.
	NameNote string
}

// identify resolves the session's identity. The key comes from the
// connection's permissions as left by the auth method that succeeded (what
// charm.land/ssh stores after the handshake), never from whatever key the
// public-key callback saw last: a client may offer key A, never prove it,
// and log in another way (CVE-2024-45337).
func (srv *Server) identify(sctx ssh.Context, user string) (Identity, error) {
	key, _ := sctx.Value(ssh.ContextKeyPublicKey).(ssh.PublicKey)
	if key == nil {
		return newGuest(), nil
	}
	fp := gossh.FingerprintSHA256(key)
	asked := sanitize.Text(user, 32)
	p, created, err := srv.deps.Store.Login(sctx, fp, key.Type(), asked)
	if errors.Is(err, store.ErrCannotSave) {
		// A known player logs in whatever the disk (Login reads their
		// record); a new key cannot be registered without a write. It
		// plays as a guest rather than being turned away: the lobby and
		// whoami say why, and the next login after the outage registers it.
		srv.log.Warn("new player not registered: the database cannot be written; playing as a guest", "fingerprint", fp, "err", err)
		g := newGuest()
		g.NameNote = "the server cannot save right now, so your key could not be registered: you play as " + g.Name +
			" and nothing is saved; connect again later to get your name"
		return g, nil
	}
	if err != nil {
		return Identity{}, fmt.Errorf("server: login %s: %w", fp, err)
	}
	var note string
	if created {
		srv.log.Info("new player", "name", p.Name, "fingerprint", fp)
		note = nameNote(asked, p.Name, srv.sshTo("rename NAME"))
	}
	if srv.deps.Chat != nil {
		// A mute outlives sessions and restarts: live chat learns of it here.
		if m, ok, err := srv.deps.Store.ActiveMute(sctx, fp); err == nil && ok {
			srv.deps.Chat.SetMuted(fp, m.Expires, m.Reason)
		}
	}
	return Identity{
		ID: fp, Name: p.Name, KeyType: p.KeyType, FirstSeen: p.FirstSeen,
		Admin: srv.admins[fp], Role: p.Role, NameNote: note,
	}, nil
}

// nameNote tells a new player why their name is not the one they asked
// for, and how to choose another (rename, the command that renames); ""
// when they got it.
func nameNote(asked, got, rename string) string {
	if store.NormalizeName(asked) == got {
		return ""
	}
	how := "rename with: " + rename
	if err := store.ValidateName(asked); err != nil {
		return fmt.Sprintf("%q cannot be a name (%v): you are %s; %s", sanitize.Text(asked, 20), err, got, how)
	}
	return fmt.Sprintf("%s is taken: you are %s; %s", store.NormalizeName(asked), got, how)
}

func newGuest() Identity {
	var b [2]byte
	_, _ = rand.Read(b[:])
	var id [8]byte
	_, _ = rand.Read(id[:])
	return Identity{
		ID:    "guest:" + hex.EncodeToString(id[:]),
		Name:  "guest-" + hex.EncodeToString(b[:]),
		Guest: true,
	}
}

// LoadAdminKeys reads an authorized_keys file and returns the fingerprints
// it lists. A missing path means "no admins"; a present but broken file is
// an error, because silently running without the operator's admins would
// lock them out of moderation.
func LoadAdminKeys(path string) (map[string]bool, error) {
	admins := map[string]bool{}
	if path == "" {
		return admins, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("admin keys: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		key, _, _, _, err := gossh.ParseAuthorizedKey(text)
		if err != nil {
			return nil, fmt.Errorf("admin keys: %s line %d: %w", path, line, err)
		}
		admins[gossh.FingerprintSHA256(key)] = true
	}
	return admins, sc.Err()
}
