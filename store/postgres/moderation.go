package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/termarena/termarena/store"
)

// ---- bans ----

const banCols = "id, fingerprint, cidr, name, reason, actor, created, expires, lifted, lifted_by"

func scanBan(row pgx.Row) (store.Ban, error) {
	var b store.Ban
	var id int64
	var cidr *netip.Prefix
	var expires, lifted *time.Time
	if err := row.Scan(&id, &b.Fingerprint, &cidr, &b.Name, &b.Reason, &b.Actor, &b.Created, &expires, &lifted, &b.LiftedBy); err != nil {
		return store.Ban{}, err
	}
	b.ID, b.Created, b.Expires, b.Lifted = uint64(id), b.Created.UTC(), fromNull(expires), fromNull(lifted)
	if cidr != nil {
		b.CIDR = cidr.String()
	}
	return b, nil
}

// AddBan stores b with its "ban" audit entry in one transaction, and
// returns it as stored (ID, Created, normalised CIDR, Name filled).
func (s *Store) AddBan(ctx context.Context, b store.Ban) (store.Ban, error) {
	b, prefix, err := s.prepareBan(b)
	if err != nil {
		return store.Ban{}, fmt.Errorf("store: add ban: %w", err)
	}
	now := s.clock()
	var out store.Ban
	err = s.write(ctx, func(tx pgx.Tx) error {
		b := b
		if b.Name == "" {
			if b.Name, err = nameOf(ctx, tx, b.Fingerprint); err != nil {
				return err
			}
		}
		var cidr *netip.Prefix
		if prefix.IsValid() {
			cidr = &prefix
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO bans (fingerprint, cidr, name, reason, actor, created, expires)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			b.Fingerprint, cidr, b.Name, b.Reason, b.Actor, b.Created, nullTime(b.Expires)).Scan(&id); err != nil {
			return fmt.Errorf("write ban: %w", err)
		}
		b.ID = uint64(id)
		var d time.Duration
		if !b.Expires.IsZero() {
			d = b.Expires.Sub(b.Created)
		}
		out = b
		return appendAudit(ctx, tx, store.AuditEntry{
			Time: now, Actor: b.Actor, Action: store.ActionBan, Target: store.AuditLabel(b.Name, b.Fingerprint),
			TargetID: b.Fingerprint, CIDR: b.CIDR, Reason: b.Reason, Duration: d,
		})
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("store: ban %s: %w", b.Fingerprint, err)
	}
	return out, nil
}

func (s *Store) prepareBan(b store.Ban) (store.Ban, netip.Prefix, error) {
	if b.ID != 0 {
		return store.Ban{}, netip.Prefix{}, fmt.Errorf("ID %d set: the store assigns ids", b.ID)
	}
	if err := errors.Join(store.CheckFingerprint(b.Fingerprint), store.CheckActor(b.Actor),
		store.CheckLen("reason", b.Reason, store.MaxReasonLen), store.CheckLen("name", b.Name, store.MaxLabelLen)); err != nil {
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
	b.Created = ts(b.Created)
	if !b.Expires.IsZero() {
		b.Expires = ts(b.Expires)
		if !b.Expires.After(b.Created) {
			return store.Ban{}, netip.Prefix{}, fmt.Errorf("expires %s is not after created %s",
				b.Expires.Format(time.RFC3339), b.Created.Format(time.RFC3339))
		}
	}
	return b, prefix, nil
}

// RemoveBan lifts every active ban of a fingerprint or current name, with
// one "unban" audit entry when it lifts any, and says how many it lifted.
func (s *Store) RemoveBan(ctx context.Context, fpOrName string, by store.By) (int, error) {
	if err := store.CheckBy(by); err != nil {
		return 0, fmt.Errorf("store: remove ban: %w", err)
	}
	now := s.clock()
	n := 0
	err := s.write(ctx, func(tx pgx.Tx) error {
		fp, name, err := resolvePlayer(ctx, tx, fpOrName)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE bans SET lifted = $2, lifted_by = $3
			WHERE fingerprint = $1 AND lifted IS NULL AND (expires IS NULL OR expires > $2)
			RETURNING id, name`, fp, now, by.Actor)
		if err != nil {
			return err
		}
		// Exported fields: RowToStructByPos sees only those, and with none
		// it failed every unban that lifted a ban.
		type lifted struct {
			ID   int64
			Name string
		}
		ls, err := pgx.CollectRows(rows, pgx.RowToStructByPos[lifted])
		if err != nil {
			return err
		}
		if n = len(ls); n == 0 {
			return nil
		}
		if name == "" { // the oldest ban's name, as on bbolt
			oldest := ls[0]
			for _, l := range ls {
				if l.ID < oldest.ID {
					oldest = l
				}
			}
			name = oldest.Name
		}
		return appendAudit(ctx, tx, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: store.ActionUnban, Target: store.AuditLabel(name, fp),
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return 0, fmt.Errorf("store: remove ban of %q: %w", fpOrName, err)
	}
	return n, nil
}

// ActiveBan is the ban that refuses key fp or address ip now: of several,
// the one that lasts longest (a permanent one first), so the refused
// player is told the real end.
func (s *Store) ActiveBan(ctx context.Context, fp string, ip net.IP) (store.Ban, bool, error) {
	if fp != "" {
		if err := store.CheckFingerprint(fp); err != nil {
			return store.Ban{}, false, fmt.Errorf("store: active ban: %w", err)
		}
	}
	var addr *netip.Addr
	if ip != nil {
		a, ok := netip.AddrFromSlice(ip)
		if !ok {
			return store.Ban{}, false, fmt.Errorf("store: active ban: invalid address of %d bytes", len(ip))
		}
		a = a.Unmap()
		addr = &a
	}
	if fp == "" && addr == nil {
		return store.Ban{}, false, nil
	}
	b, err := scanBan(s.pool.QueryRow(ctx, "SELECT "+banCols+` FROM bans
		WHERE lifted IS NULL AND (expires IS NULL OR expires > $3)
		  AND ((fingerprint = $1 AND $1 <> '') OR (cidr IS NOT NULL AND cidr >>= $2::inet))
		ORDER BY expires DESC NULLS FIRST, id LIMIT 1`, fp, addr, s.clock()))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Ban{}, false, nil
	}
	if err != nil {
		return store.Ban{}, false, fmt.Errorf("store: active ban of %s: %w", fp, classify(err))
	}
	return b, true, nil
}

// Bans lists bans newest first: the active ones, or every ban ever made.
func (s *Store) Bans(ctx context.Context, includeExpired bool) ([]store.Ban, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+banCols+` FROM bans
		WHERE $1 OR (lifted IS NULL AND (expires IS NULL OR expires > $2)) ORDER BY id DESC`, includeExpired, s.clock())
	if err != nil {
		return nil, fmt.Errorf("store: bans: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Ban, error) { return scanBan(row) })
	if err != nil {
		return nil, fmt.Errorf("store: bans: %w", classify(err))
	}
	return out, nil
}

// ---- mutes ----

// SetMute replaces fp's mute, with its "mute" audit entry.
func (s *Store) SetMute(ctx context.Context, m store.Mute) error {
	if err := errors.Join(store.CheckFingerprint(m.Fingerprint), store.CheckActor(m.Actor),
		store.CheckLen("reason", m.Reason, store.MaxReasonLen), store.CheckLen("name", m.Name, store.MaxLabelLen)); err != nil {
		return fmt.Errorf("store: set mute: %w", err)
	}
	now := s.clock()
	if m.Created.IsZero() {
		m.Created = now
	}
	m.Created = ts(m.Created)
	if !m.Expires.IsZero() {
		m.Expires = ts(m.Expires)
		if !m.Expires.After(now) || !m.Expires.After(m.Created) {
			return fmt.Errorf("store: set mute of %s: expires %s is already past", m.Fingerprint, m.Expires.Format(time.RFC3339))
		}
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		m := m
		if m.Name == "" {
			var err error
			if m.Name, err = nameOf(ctx, tx, m.Fingerprint); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO mutes (fingerprint, name, reason, actor, created, expires, auto)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (fingerprint) DO UPDATE SET name = excluded.name, reason = excluded.reason, actor = excluded.actor,
				created = excluded.created, expires = excluded.expires, auto = excluded.auto`,
			m.Fingerprint, m.Name, m.Reason, m.Actor, m.Created, nullTime(m.Expires), m.Auto); err != nil {
			return fmt.Errorf("write mute: %w", err)
		}
		var d time.Duration
		if !m.Expires.IsZero() {
			d = m.Expires.Sub(m.Created)
		}
		return appendAudit(ctx, tx, store.AuditEntry{
			Time: now, Actor: m.Actor, Action: store.ActionMute, Target: store.AuditLabel(m.Name, m.Fingerprint),
			TargetID: m.Fingerprint, Reason: m.Reason, Duration: d, Auto: m.Auto,
		})
	})
	if err != nil {
		return fmt.Errorf("store: set mute of %s: %w", m.Fingerprint, err)
	}
	return nil
}

const muteCols = "fingerprint, name, reason, actor, created, expires, auto"

func scanMute(row pgx.Row) (store.Mute, error) {
	var m store.Mute
	var expires *time.Time
	if err := row.Scan(&m.Fingerprint, &m.Name, &m.Reason, &m.Actor, &m.Created, &expires, &m.Auto); err != nil {
		return store.Mute{}, err
	}
	m.Created, m.Expires = m.Created.UTC(), fromNull(expires)
	return m, nil
}

// RemoveMute deletes fp's mute and says whether it was still active; only
// then is the "unmute" audit entry written.
func (s *Store) RemoveMute(ctx context.Context, fp string, by store.By) (bool, error) {
	if err := errors.Join(store.CheckFingerprint(fp), store.CheckBy(by)); err != nil {
		return false, fmt.Errorf("store: remove mute: %w", err)
	}
	now := s.clock()
	active := false
	err := s.write(ctx, func(tx pgx.Tx) error {
		m, err := scanMute(tx.QueryRow(ctx, "DELETE FROM mutes WHERE fingerprint = $1 RETURNING "+muteCols, fp))
		if errors.Is(err, pgx.ErrNoRows) {
			active = false
			return nil
		}
		if err != nil {
			return err
		}
		if active = m.ActiveAt(now); !active {
			return nil
		}
		name, err := nameOf(ctx, tx, fp)
		if err != nil {
			return err
		}
		if name == "" {
			name = m.Name
		}
		return appendAudit(ctx, tx, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: store.ActionUnmute, Target: store.AuditLabel(name, fp),
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return false, fmt.Errorf("store: remove mute of %s: %w", fp, err)
	}
	return active, nil
}

// ActiveMute is fp's mute if it still applies.
func (s *Store) ActiveMute(ctx context.Context, fp string) (store.Mute, bool, error) {
	if err := store.CheckFingerprint(fp); err != nil {
		return store.Mute{}, false, fmt.Errorf("store: active mute: %w", err)
	}
	m, err := scanMute(s.pool.QueryRow(ctx, "SELECT "+muteCols+" FROM mutes WHERE fingerprint = $1", fp))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Mute{}, false, nil
	}
	if err != nil {
		return store.Mute{}, false, fmt.Errorf("store: active mute of %s: %w", fp, classify(err))
	}
	if !m.ActiveAt(s.clock()) {
		return store.Mute{}, false, nil
	}
	return m, true, nil
}

// Mutes lists the mutes still active, newest first.
func (s *Store) Mutes(ctx context.Context) ([]store.Mute, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+muteCols+` FROM mutes WHERE expires IS NULL OR expires > $1
		ORDER BY created DESC, fingerprint COLLATE "C"`, s.clock())
	if err != nil {
		return nil, fmt.Errorf("store: mutes: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Mute, error) { return scanMute(row) })
	if err != nil {
		return nil, fmt.Errorf("store: mutes: %w", classify(err))
	}
	return out, nil
}

// ---- audit ----

// Audit appends e to the moderation log (ID and Time assigned here).
func (s *Store) Audit(ctx context.Context, e store.AuditEntry) error {
	if e.ID != 0 {
		return fmt.Errorf("store: audit: ID %d set: the store assigns ids", e.ID)
	}
	if err := store.CheckEntry(e); err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	e.Time = s.clock()
	if err := classify(appendAudit(ctx, s.pool, e)); err != nil {
		return fmt.Errorf("store: audit %s: %w", e.Action, err)
	}
	return nil
}

// execer is what appendAudit writes through: a transaction, or the pool
// for an entry that goes with no other change.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// appendAudit is the one place entries are written.
func appendAudit(ctx context.Context, db execer, e store.AuditEntry) error {
	_, err := db.Exec(ctx, `INSERT INTO audit (at, actor, action, target, target_id, cidr, reason, duration_ns, auto)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		ts(e.Time), e.Actor, e.Action, e.Target, e.TargetID, e.CIDR, e.Reason, int64(e.Duration), e.Auto)
	if err != nil {
		return fmt.Errorf("write audit entry: %w", err)
	}
	return nil
}

// AuditLog is the entries at or after since (zero: all), newest first.
func (s *Store) AuditLog(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, at, actor, action, target, target_id, cidr, reason, duration_ns, auto
		FROM audit WHERE at >= $1 ORDER BY id DESC LIMIT $2`, since.UTC(), store.ClampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("store: audit log: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.AuditEntry, error) {
		var e store.AuditEntry
		var id, d int64
		err := row.Scan(&id, &e.Time, &e.Actor, &e.Action, &e.Target, &e.TargetID, &e.CIDR, &e.Reason, &d, &e.Auto)
		e.ID, e.Time, e.Duration = uint64(id), e.Time.UTC(), time.Duration(d)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: audit log: %w", classify(err))
	}
	return out, nil
}

// ---- roles ----

// SetRole sets fp's role with its "promote" or "demote" audit entry when
// it changes; an unknown fp is ErrNotFound.
func (s *Store) SetRole(ctx context.Context, fp, role string, by store.By) (store.Player, error) {
	if role != "" && role != store.RoleModerator {
		return store.Player{}, fmt.Errorf("store: set role: unknown role %q", role)
	}
	if err := store.CheckBy(by); err != nil {
		return store.Player{}, fmt.Errorf("store: set role: %w", err)
	}
	now := s.clock()
	var p store.Player
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		p, err = scanPlayer(tx.QueryRow(ctx, "SELECT "+playerCols+" FROM players WHERE fingerprint = $1 FOR UPDATE", fp))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("fingerprint %q: %w", fp, store.ErrNotFound)
		}
		if err != nil || p.Role == role {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE players SET role = $2 WHERE fingerprint = $1", fp, role); err != nil {
			return err
		}
		p.Role = role
		action := store.ActionPromote
		if role == "" {
			action = store.ActionDemote
		}
		return appendAudit(ctx, tx, store.AuditEntry{
			Time: now, Actor: by.Actor, Action: action, Target: p.Name,
			TargetID: fp, Reason: by.Reason, Auto: by.Auto,
		})
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("store: set role of %s to %q: %w", fp, role, err)
	}
	return p, nil
}

// Moderators lists the players with RoleModerator, by name.
func (s *Store) Moderators(ctx context.Context) ([]store.Player, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+playerCols+` FROM players WHERE role = $1 ORDER BY name COLLATE "C"`, store.RoleModerator)
	if err != nil {
		return nil, fmt.Errorf("store: moderators: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Player, error) { return scanPlayer(row) })
	if err != nil {
		return nil, fmt.Errorf("store: moderators: %w", classify(err))
	}
	return out, nil
}

// ---- shared ----

// nameOf is fp's current name, "" for a key no player holds.
func nameOf(ctx context.Context, tx pgx.Tx, fp string) (string, error) {
	var name string
	err := tx.QueryRow(ctx, "SELECT name FROM players WHERE fingerprint = $1", fp).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return name, err
}

// resolvePlayer turns a fingerprint (it has a colon, which no name may)
// or a current name into a fingerprint and the name ("" for a key no
// player holds); an unknown name is ErrNotFound.
func resolvePlayer(ctx context.Context, tx pgx.Tx, fpOrName string) (fp, name string, err error) {
	if strings.Contains(fpOrName, ":") {
		if err := store.CheckFingerprint(fpOrName); err != nil {
			return "", "", err
		}
		name, err := nameOf(ctx, tx, fpOrName)
		return fpOrName, name, err
	}
	if len(fpOrName) > store.MaxNameInput {
		return "", "", fmt.Errorf("name: %w", store.ErrNotFound)
	}
	n := store.NormalizeName(fpOrName)
	err = tx.QueryRow(ctx, "SELECT fingerprint FROM players WHERE name = $1", n).Scan(&fp)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("name %q: %w", n, store.ErrNotFound)
	}
	return fp, n, err
}
