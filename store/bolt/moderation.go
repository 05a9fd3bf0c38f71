package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
)

// Moderation buckets. Bans are keyed by id so one player can carry several
// (a short ban, then a longer one) and lifted or expired ones stay as
// history; the two index buckets make the login-time check cheap without
// reading that history.
const (
	bucketBans = "bans"
	// bucketBanFingerprints holds fingerprint, a zero byte, then the
	// big-endian ban id (like player_matches), with empty values.
	bucketBanFingerprints = "ban_fingerprints"
	// bucketBanRanges holds the big-endian id of every unlifted ban with an
	// address range, the range as its value, so checking an address never
	// decodes a ban record that cannot match.
	bucketBanRanges = "ban_ranges"
	// bucketMutes is keyed by fingerprint: a player has one mute at most,
	// and a new one replaces it.
	bucketMutes = "mutes"
	// bucketAudit is append-only, keyed by big-endian id, so id order is
	// the order entries were written in.
	bucketAudit = "audit"
)

// banRecord is the stored form under bans/<big-endian id>.
type banRecord struct {
	V           int       `json:"v"`
	Fingerprint string    `json:"fp"`
	CIDR        string    `json:"cidr,omitempty"`
	Name        string    `json:"name,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Actor       string    `json:"actor"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires,omitzero"`
	Lifted      time.Time `json:"lifted,omitzero"`
	LiftedBy    string    `json:"lifted_by,omitempty"`
}

func (r banRecord) ban(id uint64) store.Ban {
	return store.Ban{ID: id, Fingerprint: r.Fingerprint, CIDR: r.CIDR, Name: r.Name, Reason: r.Reason, Actor: r.Actor,
		Created: r.Created, Expires: r.Expires, Lifted: r.Lifted, LiftedBy: r.LiftedBy}
}

func newBanRecord(b store.Ban) banRecord {
	return banRecord{V: recordVersion, Fingerprint: b.Fingerprint, CIDR: b.CIDR, Name: b.Name, Reason: b.Reason,
		Actor: b.Actor, Created: b.Created, Expires: b.Expires, Lifted: b.Lifted, LiftedBy: b.LiftedBy}
}

// muteRecord is the stored form under mutes/<fingerprint>.
type muteRecord struct {
	V       int       `json:"v"`
	Name    string    `json:"name,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Actor   string    `json:"actor"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires,omitzero"`
	Auto    bool      `json:"auto,omitempty"`
}

// auditRecord is the stored form under audit/<big-endian id>.
type auditRecord struct {
	V        int           `json:"v"`
	Time     time.Time     `json:"time"`
	Actor    string        `json:"actor"`
	Action   string        `json:"action"`
	Target   string        `json:"target,omitempty"`
	TargetID string        `json:"target_id,omitempty"`
	CIDR     string        `json:"cidr,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Auto     bool          `json:"auto,omitempty"`
}

// ---- bans ----

// AddBan stores b and returns it as stored, with its ID, Created (the
// store's clock when zero), a normalised CIDR and Name filled in. In the
// same transaction it appends the "ban" audit entry built from b (Actor,
// Reason, the duration Expires−Created), so a ban can never exist without
// its log line.
//
// The fingerprint need not belong to a known player: an admin may ban a
// key before it ever logs in. An Expires that is not after Created is
// refused, since the ban would never apply.
func (s *Store) AddBan(ctx context.Context, b store.Ban) (store.Ban, error) {
	b, prefix, err := s.prepareBan(b)
	if err != nil {
		return store.Ban{}, fmt.Errorf("store: add ban: %w", err)
	}
	now := s.now().UTC()
	err = s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		if b.Name == "" {
			if b.Name, _, err = playerName(mb.players, b.Fingerprint); err != nil {
				return err
			}
		}
		if b.ID, err = mb.bans.NextSequence(); err != nil {
			return fmt.Errorf("next ban id: %w", err)
		}
		if err := putBan(mb.bans, b); err != nil {
			return err
		}
		if err := mb.banFPs.Put(playerMatchKey(b.Fingerprint, b.ID), []byte{}); err != nil {
			return fmt.Errorf("index ban %d: %w", b.ID, err)
		}
		if prefix.IsValid() {
			if err := mb.banRanges.Put(matchKey(b.ID), []byte(b.CIDR)); err != nil {
				return fmt.Errorf("index ban %d range: %w", b.ID, err)
			}
		}
		var d time.Duration
		if !b.Expires.IsZero() {
			d = b.Expires.Sub(b.Created)
		}
		return appendAudit(mb.audit, store.AuditEntry{
			Time: now, Actor: b.Actor, Action: store.ActionBan, Target: store.AuditLabel(b.Name, b.Fingerprint),
			TargetID: b.Fingerprint, CIDR: b.CIDR, Reason: b.Reason, Duration: d,
		})
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("store: ban %s: %w", b.Fingerprint, err)
	}
	return b, nil
}

func (s *Store) prepareBan(b store.Ban) (store.Ban, netip.Prefix, error) {
	if b.ID != 0 {
		return store.Ban{}, netip.Prefix{}, fmt.Errorf("ID %d set: the store assigns ids", b.ID)
	}
	if err := store.CheckFingerprint(b.Fingerprint); err != nil {
		return store.Ban{}, netip.Prefix{}, err
	}
	if err := store.CheckActor(b.Actor); err != nil {
		return store.Ban{}, netip.Prefix{}, err
	}
	if err := errors.Join(store.CheckLen("reason", b.Reason, store.MaxReasonLen), store.CheckLen("name", b.Name, store.MaxLabelLen)); err != nil {
		return store.Ban{}, netip.Prefix{}, err
	}
	if !b.Lifted.IsZero() || b.LiftedBy != "" {
		return store.Ban{}, netip.Prefix{}, errors.New("a new ban cannot be lifted already")
	}
	var prefix netip.Prefix
	if b.CIDR != "" {
		var err error
		if prefix, err = store.ParseCIDR(b.CIDR); err != nil {
			return store.Ban{}, netip.Prefix{}, err
		}
		b.CIDR = prefix.String()
	}
	if b.Created.IsZero() {
		b.Created = s.now()
	}
	b.Created = b.Created.UTC()
	if !b.Expires.IsZero() {
		b.Expires = b.Expires.UTC()
		if !b.Expires.After(b.Created) {
			return store.Ban{}, netip.Prefix{}, fmt.Errorf("expires %s is not after created %s",
				b.Expires.Format(time.RFC3339), b.Created.Format(time.RFC3339))
		}
	}
	return b, prefix, nil
}

// RemoveBan lifts every active ban of one player, named by fingerprint
// ("SHA256:…", recognised by its colon, which no name may contain) or by
// current name, and reports how many it lifted. Lifted bans stay listed
// (Bans(true)) with Lifted and LiftedBy set. When it lifts any, the
// "unban" audit entry built from by is written in the same transaction;
// lifting nothing writes nothing. An unknown name is ErrNotFound; an
// unknown fingerprint simply has no bans.
func (s *Store) RemoveBan(ctx context.Context, fpOrName string, by store.By) (int, error) {
	if err := store.CheckBy(by); err != nil {
		return 0, fmt.Errorf("store: remove ban: %w", err)
	}
	now := s.now().UTC()
	n := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		fp, name, err := resolvePlayer(mb.players, mb.names, fpOrName)
		if err != nil {
			return err
		}
		ids, err := banIDs(mb.banFPs, fp)
		if err != nil {
			return err
		}
		for _, id := range ids {
			b, err := getBan(mb.bans, id)
			if err != nil {
				return err
			}
			if !b.ActiveAt(now) {
				continue
			}
			if name == "" {
				name = b.Name
			}
			b.Lifted, b.LiftedBy = now, by.Actor
			if err := putBan(mb.bans, b); err != nil {
				return err
			}
			if err := mb.banRanges.Delete(matchKey(id)); err != nil {
				return fmt.Errorf("unindex ban %d range: %w", id, err)
			}
			n++
		}
		if n == 0 {
			return nil
		}
		return appendAudit(mb.audit, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: store.ActionUnban, Target: store.AuditLabel(name, fp),
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return 0, fmt.Errorf("store: remove ban of %q: %w", fpOrName, err)
	}
	return n, nil
}

// ActiveBan reports the ban that refuses a login by key fp from address
// ip, if any: a ban of fp, or one whose range holds ip. Either may be
// empty (a guest has no key; a test may have no address). When several
// apply it returns the one that lasts longest, so the message a refused
// player sees names the real end. Expired and lifted bans never apply.
func (s *Store) ActiveBan(ctx context.Context, fp string, ip net.IP) (store.Ban, bool, error) {
	if fp != "" {
		if err := store.CheckFingerprint(fp); err != nil {
			return store.Ban{}, false, fmt.Errorf("store: active ban: %w", err)
		}
	}
	var addr netip.Addr
	if ip != nil {
		a, ok := netip.AddrFromSlice(ip)
		if !ok {
			return store.Ban{}, false, fmt.Errorf("store: active ban: invalid address of %d bytes", len(ip))
		}
		addr = a.Unmap()
	}
	now := s.now()
	var best store.Ban
	found := false
	consider := func(b store.Ban) {
		if b.ActiveAt(now) && (!found || outlasts(b, best)) {
			best, found = b, true
		}
	}
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		if fp != "" {
			ids, err := banIDs(mb.banFPs, fp)
			if err != nil {
				return err
			}
			for _, id := range ids {
				b, err := getBan(mb.bans, id)
				if err != nil {
					return err
				}
				consider(b)
			}
		}
		if !addr.IsValid() {
			return nil
		}
		return mb.banRanges.ForEach(func(k, v []byte) error {
			p, err := netip.ParsePrefix(string(v))
			if err != nil {
				return fmt.Errorf("%s entry %x: %w", bucketBanRanges, k, err)
			}
			if !p.Contains(addr) {
				return nil
			}
			if len(k) != 8 {
				return fmt.Errorf("%s key %x: bad length", bucketBanRanges, k)
			}
			b, err := getBan(mb.bans, binary.BigEndian.Uint64(k))
			if err != nil {
				return err
			}
			consider(b)
			return nil
		})
	})
	if err != nil {
		return store.Ban{}, false, fmt.Errorf("store: active ban of %s: %w", fp, err)
	}
	return best, found, nil
}

// outlasts reports whether a ends after b; a permanent ban outlasts all.
func outlasts(a, b store.Ban) bool {
	switch {
	case b.Expires.IsZero():
		return false
	case a.Expires.IsZero():
		return true
	}
	return a.Expires.After(b.Expires)
}

// Bans lists bans newest first: the active ones, or with includeExpired
// every ban ever made, expired and lifted ones included.
func (s *Store) Bans(ctx context.Context, includeExpired bool) ([]store.Ban, error) {
	now := s.now()
	var out []store.Ban
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		c := mb.bans.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if len(k) != 8 {
				return fmt.Errorf("%s key %x: bad length", bucketBans, k)
			}
			rec, err := decodeBan(v)
			if err != nil {
				return err
			}
			if b := rec.ban(binary.BigEndian.Uint64(k)); includeExpired || b.ActiveAt(now) {
				out = append(out, b)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: bans: %w", err)
	}
	return out, nil
}

// banIDs lists fp's ban ids, oldest first.
func banIDs(index *bbolt.Bucket, fp string) ([]uint64, error) {
	prefix := append([]byte(fp), 0)
	var ids []uint64
	c := index.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		idb := k[len(prefix):]
		if len(idb) != 8 {
			return nil, fmt.Errorf("%s key %q: bad length", bucketBanFingerprints, k)
		}
		ids = append(ids, binary.BigEndian.Uint64(idb))
	}
	return ids, nil
}

func getBan(bans *bbolt.Bucket, id uint64) (store.Ban, error) {
	raw := bans.Get(matchKey(id))
	if raw == nil {
		return store.Ban{}, fmt.Errorf("ban %d: %w", id, store.ErrNotFound)
	}
	rec, err := decodeBan(raw)
	if err != nil {
		return store.Ban{}, fmt.Errorf("ban %d: %w", id, err)
	}
	return rec.ban(id), nil
}

func putBan(bans *bbolt.Bucket, b store.Ban) error {
	raw, err := json.Marshal(newBanRecord(b))
	if err != nil {
		return fmt.Errorf("encode ban: %w", err)
	}
	if err := bans.Put(matchKey(b.ID), raw); err != nil {
		return fmt.Errorf("write ban %d: %w", b.ID, err)
	}
	return nil
}

// decodeBan keeps nothing that points into raw (bbolt's memory).
func decodeBan(raw []byte) (banRecord, error) { return decodeRecord[banRecord](raw, "ban") }

func (r banRecord) version() int { return r.V }

// ---- mutes ----

// SetMute stores m as the player's only mute, replacing any earlier one,
// and in the same transaction appends the "mute" audit entry built from m
// (Actor, Reason, Auto, the duration Expires−Created). Created defaults to
// the store's clock; an Expires that is already past is refused, since the
// mute would never apply. Name is filled in from the player record when
// empty. The player need not be known (the chat layer may mute by key).
func (s *Store) SetMute(ctx context.Context, m store.Mute) error {
	if err := store.CheckFingerprint(m.Fingerprint); err != nil {
		return fmt.Errorf("store: set mute: %w", err)
	}
	if err := store.CheckActor(m.Actor); err != nil {
		return fmt.Errorf("store: set mute: %w", err)
	}
	if err := errors.Join(store.CheckLen("reason", m.Reason, store.MaxReasonLen), store.CheckLen("name", m.Name, store.MaxLabelLen)); err != nil {
		return fmt.Errorf("store: set mute: %w", err)
	}
	now := s.now().UTC()
	if m.Created.IsZero() {
		m.Created = now
	}
	m.Created = m.Created.UTC()
	if !m.Expires.IsZero() {
		m.Expires = m.Expires.UTC()
		if !m.Expires.After(now) || !m.Expires.After(m.Created) {
			return fmt.Errorf("store: set mute of %s: expires %s is already past", m.Fingerprint, m.Expires.Format(time.RFC3339))
		}
	}
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		if m.Name == "" {
			if m.Name, _, err = playerName(mb.players, m.Fingerprint); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(muteRecord{V: recordVersion, Name: m.Name, Reason: m.Reason, Actor: m.Actor,
			Created: m.Created, Expires: m.Expires, Auto: m.Auto})
		if err != nil {
			return fmt.Errorf("encode mute: %w", err)
		}
		if err := mb.mutes.Put([]byte(m.Fingerprint), raw); err != nil {
			return fmt.Errorf("write mute: %w", err)
		}
		var d time.Duration
		if !m.Expires.IsZero() {
			d = m.Expires.Sub(m.Created)
		}
		return appendAudit(mb.audit, store.AuditEntry{
			Time: now, Actor: m.Actor, Action: store.ActionMute, Target: store.AuditLabel(m.Name, m.Fingerprint),
			TargetID: m.Fingerprint, Reason: m.Reason, Duration: d, Auto: m.Auto,
		})
	})
	if err != nil {
		return fmt.Errorf("store: set mute of %s: %w", m.Fingerprint, err)
	}
	return nil
}

// RemoveMute deletes fp's mute and reports whether it was still active.
// Only lifting an active mute writes the "unmute" audit entry (built from
// by, in the same transaction); an expired record is deleted silently.
func (s *Store) RemoveMute(ctx context.Context, fp string, by store.By) (bool, error) {
	if err := errors.Join(store.CheckFingerprint(fp), store.CheckBy(by)); err != nil {
		return false, fmt.Errorf("store: remove mute: %w", err)
	}
	now := s.now().UTC()
	active := false
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		raw := mb.mutes.Get([]byte(fp))
		if raw == nil {
			return nil
		}
		rec, err := decodeMute(raw)
		if err != nil {
			return err
		}
		m := rec.mute(fp)
		if err := mb.mutes.Delete([]byte(fp)); err != nil {
			return fmt.Errorf("delete mute: %w", err)
		}
		if active = m.ActiveAt(now); !active {
			return nil
		}
		name, _, err := playerName(mb.players, fp)
		if err != nil {
			return err
		}
		if name == "" {
			name = m.Name
		}
		return appendAudit(mb.audit, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: store.ActionUnmute, Target: store.AuditLabel(name, fp),
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return false, fmt.Errorf("store: remove mute of %s: %w", fp, err)
	}
	return active, nil
}

// ActiveMute returns fp's mute if it still applies.
func (s *Store) ActiveMute(ctx context.Context, fp string) (store.Mute, bool, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return store.Mute{}, false, fmt.Errorf("store: active mute: %w", err)
	}
	now := s.now()
	var m store.Mute
	found := false
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		raw := mb.mutes.Get([]byte(fp))
		if raw == nil {
			return nil
		}
		rec, err := decodeMute(raw)
		if err != nil {
			return err
		}
		m = rec.mute(fp)
		found = m.ActiveAt(now)
		return nil
	})
	if err != nil {
		return store.Mute{}, false, fmt.Errorf("store: active mute of %s: %w", fp, err)
	}
	if !found {
		return store.Mute{}, false, nil
	}
	return m, true, nil
}

// Mutes lists the mutes still active, newest first.
func (s *Store) Mutes(ctx context.Context) ([]store.Mute, error) {
	now := s.now()
	var out []store.Mute
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		return mb.mutes.ForEach(func(k, v []byte) error {
			rec, err := decodeMute(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if m := rec.mute(string(k)); m.ActiveAt(now) {
				out = append(out, m)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: mutes: %w", err)
	}
	slices.SortFunc(out, func(a, b store.Mute) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	return out, nil
}

func (r muteRecord) mute(fp string) store.Mute {
	return store.Mute{Fingerprint: fp, Name: r.Name, Reason: r.Reason, Actor: r.Actor,
		Created: r.Created, Expires: r.Expires, Auto: r.Auto}
}

// decodeMute keeps nothing that points into raw (bbolt's memory).
func decodeMute(raw []byte) (muteRecord, error) { return decodeRecord[muteRecord](raw, "mute") }

func (r muteRecord) version() int { return r.V }

// ---- audit ----

// Audit appends e to the moderation log, for actions that change no stored
// state (kick, warn, announce, backup). ID and Time are assigned here, Time
// from the store's clock, so id order and time order agree, which lets
// AuditLog stop at the first entry older than it wants.
func (s *Store) Audit(ctx context.Context, e store.AuditEntry) error {
	if e.ID != 0 {
		return fmt.Errorf("store: audit: ID %d set: the store assigns ids", e.ID)
	}
	if err := store.CheckEntry(e); err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	e.Time = s.now().UTC()
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketAudit))
		if b == nil {
			return fmt.Errorf("bucket %s missing", bucketAudit)
		}
		return appendAudit(b, e)
	})
	if err != nil {
		return fmt.Errorf("store: audit %s: %w", e.Action, err)
	}
	return nil
}

// AuditLog returns entries written at or after since (zero: from the
// start), newest first; limit<=0 means 20 and more than 1000 means 1000.
func (s *Store) AuditLog(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	limit = store.ClampLimit(limit)
	var out []store.AuditEntry
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucketAudit))
		if b == nil {
			return fmt.Errorf("bucket %s missing", bucketAudit)
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && len(out) < limit; k, v = c.Prev() {
			if len(k) != 8 {
				return fmt.Errorf("%s key %x: bad length", bucketAudit, k)
			}
			rec, err := decodeAudit(v)
			if err != nil {
				return err
			}
			if rec.Time.Before(since) {
				break
			}
			out = append(out, store.AuditEntry{ID: binary.BigEndian.Uint64(k), Time: rec.Time, Actor: rec.Actor,
				Action: rec.Action, Target: rec.Target, TargetID: rec.TargetID, CIDR: rec.CIDR,
				Reason: rec.Reason, Duration: rec.Duration, Auto: rec.Auto})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: audit log: %w", err)
	}
	return out, nil
}

// appendAudit is the one place entries are written, so every writer, the
// store's own moderation writes included, shares the key scheme.
func appendAudit(b *bbolt.Bucket, e store.AuditEntry) error {
	id, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("next audit id: %w", err)
	}
	raw, err := json.Marshal(auditRecord{V: recordVersion, Time: e.Time, Actor: e.Actor, Action: e.Action,
		Target: e.Target, TargetID: e.TargetID, CIDR: e.CIDR, Reason: e.Reason, Duration: e.Duration, Auto: e.Auto})
	if err != nil {
		return fmt.Errorf("encode audit entry: %w", err)
	}
	if err := b.Put(matchKey(id), raw); err != nil {
		return fmt.Errorf("write audit entry %d: %w", id, err)
	}
	return nil
}

// decodeAudit keeps nothing that points into raw (bbolt's memory).
func decodeAudit(raw []byte) (auditRecord, error) {
	return decodeRecord[auditRecord](raw, "audit entry")
}

func (r auditRecord) version() int { return r.V }

// ---- roles ----

// SetRole sets the player's role ("" or RoleModerator) and, when that
// changes it, appends the "promote" or "demote" audit entry built from by
// in the same transaction. Setting the role a player already has is not an
// error and writes nothing. An unknown fp is ErrNotFound.
func (s *Store) SetRole(ctx context.Context, fp, role string, by store.By) (store.Player, error) {
	if role != "" && role != store.RoleModerator {
		return store.Player{}, fmt.Errorf("store: set role: unknown role %q", role)
	}
	if err := store.CheckBy(by); err != nil {
		return store.Player{}, fmt.Errorf("store: set role: %w", err)
	}
	now := s.now().UTC()
	var p store.Player
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		mb, err := modBuckets(tx)
		if err != nil {
			return err
		}
		key := []byte(fp)
		raw := mb.players.Get(key)
		if raw == nil {
			return fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
		}
		rec, err := decodePlayer(raw)
		if err != nil {
			return err
		}
		if rec.Role == role {
			p = rec.player(fp)
			return nil
		}
		rec.Role = role
		if err := putPlayer(mb.players, key, rec); err != nil {
			return err
		}
		p = rec.player(fp)
		action := store.ActionPromote
		if role == "" {
			action = store.ActionDemote
		}
		return appendAudit(mb.audit, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: action, Target: rec.Name,
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: set role of %s to %q: %w", fp, role, err)
	}
	return p, nil
}

// Moderators lists the players with RoleModerator, by name. It reads every
// player record, which is fine for an admin command but not for a hot path:
// the chat layer should read the role from the session's player record.
func (s *Store) Moderators(ctx context.Context) ([]store.Player, error) {
	var out []store.Player
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		players, _, err := playerBuckets(tx)
		if err != nil {
			return err
		}
		return players.ForEach(func(k, v []byte) error {
			rec, err := decodePlayer(v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if rec.Role == store.RoleModerator {
				out = append(out, rec.player(string(k)))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: moderators: %w", err)
	}
	slices.SortFunc(out, func(a, b store.Player) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ---- shared ----

type modBucketSet struct {
	bans, banFPs, banRanges, mutes, audit, players, names *bbolt.Bucket
}

func modBuckets(tx *bbolt.Tx) (modBucketSet, error) {
	players, names, err := playerBuckets(tx)
	if err != nil {
		return modBucketSet{}, err
	}
	b := modBucketSet{
		bans:      tx.Bucket([]byte(bucketBans)),
		banFPs:    tx.Bucket([]byte(bucketBanFingerprints)),
		banRanges: tx.Bucket([]byte(bucketBanRanges)),
		mutes:     tx.Bucket([]byte(bucketMutes)),
		audit:     tx.Bucket([]byte(bucketAudit)),
		players:   players,
		names:     names,
	}
	if b.bans == nil || b.banFPs == nil || b.banRanges == nil || b.mutes == nil || b.audit == nil {
		// Open's migrations create all of them, so this means the file
		// was altered behind our back.
		return modBucketSet{}, fmt.Errorf("bucket %s, %s, %s, %s or %s missing",
			bucketBans, bucketBanFingerprints, bucketBanRanges, bucketMutes, bucketAudit)
	}
	return b, nil
}

// resolvePlayer turns a fingerprint or a name into a fingerprint and the
// current name ("" for a fingerprint no player holds). A colon marks a
// fingerprint: names may not contain one, so the two never collide.
func resolvePlayer(players, names *bbolt.Bucket, fpOrName string) (fp, name string, err error) {
	if strings.Contains(fpOrName, ":") {
		if err := store.CheckFingerprint(fpOrName); err != nil {
			return "", "", err
		}
		name, _, err := playerName(players, fpOrName)
		return fpOrName, name, err
	}
	if len(fpOrName) > store.MaxNameInput {
		return "", "", fmt.Errorf("name: %w", store.ErrNotFound)
	}
	n := store.NormalizeName(fpOrName)
	raw := names.Get([]byte(n))
	if raw == nil {
		return "", "", fmt.Errorf("name %q: %w", n, store.ErrNotFound)
	}
	return string(raw), n, nil
}
