package postgres

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/termarena/termarena/store/dump"
)

// Export emits every record of the database, kind by kind in dump.Kinds'
// order, from one repeatable-read transaction: a consistent copy while
// nodes keep serving.
func (s *Store) Export(ctx context.Context, emit func(dump.Record) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("store: postgres: export: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }() // read only: nothing to keep
	if err := exportTx(ctx, tx, emit); err != nil {
		return fmt.Errorf("store: postgres: export: %w", err)
	}
	return nil
}

// Backup writes the portable export (dump's JSON lines) of everything to
// w: what `admin backup` streams on PostgreSQL, and what `termarena
// migrate --from FILE` reads back into a bbolt file or a database.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	dw, err := dump.NewWriter(w, "postgres", s.now())
	if err != nil {
		return 0, fmt.Errorf("store: postgres: backup: %w", err)
	}
	if err := s.Export(ctx, dw.Write); err != nil {
		n, _ := dw.Close()
		return n, fmt.Errorf("store: postgres: backup: %w", err)
	}
	n, err := dw.Close()
	if err != nil {
		return n, fmt.Errorf("store: postgres: backup: %w", err)
	}
	return n, nil
}

// Import adds every record of src the database does not hold yet, in one
// transaction: an error anywhere (a conflict, a record the schema refuses,
// src failing, ctx ending) writes nothing. The tables are locked against
// writers meanwhile, so what Merge compares with is what stays there.
func (s *Store) Import(ctx context.Context, src func(emit func(dump.Record) error) error) (dump.Counts, error) {
	var counts dump.Counts
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE players, ratings, matches, match_players, replays, bans, mutes, audit, leaves IN EXCLUSIVE MODE"); err != nil {
			return fmt.Errorf("lock tables: %w", err)
		}
		m := dump.NewMerge()
		if err := exportTx(ctx, tx, m.Have); err != nil {
			return fmt.Errorf("read what is there: %w", err)
		}
		err := src(func(r dump.Record) error {
			isNew, err := m.Add(r)
			if err != nil || !isNew {
				return err
			}
			return importRecord(ctx, tx, r)
		})
		if err != nil {
			return err
		}
		// The ids came with the records: each identity moves past them so
		// the next match, ban or entry gets a fresh one.
		for _, table := range []string{"matches", "bans", "audit"} {
			q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), max(id)) FROM %[1]s HAVING max(id) IS NOT NULL", table)
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s ids: %w", table, err)
			}
		}
		counts = m.Counts()
		return nil
	})
	if err != nil {
		return dump.Counts{}, fmt.Errorf("store: postgres: import: %w", err)
	}
	return counts, nil
}

// exportTx emits the records tx sees, kind by kind.
func exportTx(ctx context.Context, tx pgx.Tx, emit func(dump.Record) error) error {
	if err := exportPlayers(ctx, tx, emit); err != nil {
		return err
	}
	if err := exportRatings(ctx, tx, emit); err != nil {
		return err
	}
	if err := exportMatches(ctx, tx, emit); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, "replays", "SELECT match_id, data FROM replays ORDER BY match_id", func(row pgx.CollectableRow) (dump.Record, error) {
		var r dump.Replay
		var id int64
		err := row.Scan(&id, &r.Data)
		r.MatchID = uint64(id)
		return dump.Record{Replay: &r}, err
	}, emit); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, "bans", `SELECT id, fingerprint, cidr, name, reason, actor, created, expires, lifted, lifted_by
		FROM bans ORDER BY id`, func(row pgx.CollectableRow) (dump.Record, error) {
		var b dump.Ban
		var id int64
		var cidr *netip.Prefix
		var expires, lifted *time.Time
		err := row.Scan(&id, &b.Fingerprint, &cidr, &b.Name, &b.Reason, &b.Actor, &b.Created, &expires, &lifted, &b.LiftedBy)
		b.ID, b.Expires, b.Lifted = uint64(id), orZero(expires), orZero(lifted)
		if cidr != nil {
			b.CIDR = cidr.String()
		}
		return dump.Record{Ban: &b}, err
	}, emit); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, "mutes", `SELECT fingerprint, name, reason, actor, created, expires, auto
		FROM mutes ORDER BY fingerprint`, func(row pgx.CollectableRow) (dump.Record, error) {
		var m dump.Mute
		var expires *time.Time
		err := row.Scan(&m.Fingerprint, &m.Name, &m.Reason, &m.Actor, &m.Created, &expires, &m.Auto)
		m.Expires = orZero(expires)
		return dump.Record{Mute: &m}, err
	}, emit); err != nil {
		return err
	}
	if err := exportRows(ctx, tx, "audit", `SELECT id, at, actor, action, target, target_id, cidr, reason, duration_ns, auto
		FROM audit ORDER BY id`, func(row pgx.CollectableRow) (dump.Record, error) {
		var a dump.Audit
		var id, d int64
		err := row.Scan(&id, &a.Time, &a.Actor, &a.Action, &a.Target, &a.TargetID, &a.CIDR, &a.Reason, &d, &a.Auto)
		a.ID, a.Duration = uint64(id), time.Duration(d)
		return dump.Record{Audit: &a}, err
	}, emit); err != nil {
		return err
	}
	return exportRows(ctx, tx, "leaves", "SELECT fingerprint, strikes, last_leave, cooldown FROM leaves ORDER BY fingerprint",
		func(row pgx.CollectableRow) (dump.Record, error) {
			var l dump.Leaves
			err := row.Scan(&l.Fingerprint, &l.Strikes, &l.Last, &l.Until)
			return dump.Record{Leaves: &l}, err
		}, emit)
}

// exportRows emits one record per row of q. The rows are read to the end
// before the next query (pgx allows one result at a time per connection),
// and emit may not use tx.
func exportRows(ctx context.Context, tx pgx.Tx, what, q string, scan func(pgx.CollectableRow) (dump.Record, error), emit func(dump.Record) error) error {
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	return nil
}

func exportPlayers(ctx context.Context, tx pgx.Tx, emit func(dump.Record) error) error {
	return exportRows(ctx, tx, "players", `SELECT fingerprint, name, key_type, first_seen, last_seen, role, renamed
		FROM players ORDER BY fingerprint`, func(row pgx.CollectableRow) (dump.Record, error) {
		var p dump.Player
		var renamed *time.Time
		err := row.Scan(&p.Fingerprint, &p.Name, &p.KeyType, &p.FirstSeen, &p.LastSeen, &p.Role, &renamed)
		p.Renamed = orZero(renamed)
		return dump.Record{Player: &p}, err
	}, emit)
}

func exportRatings(ctx context.Context, tx pgx.Tx, emit func(dump.Record) error) error {
	return exportRows(ctx, tx, "ratings", `SELECT mode, fingerprint, rating, deviation, volatility, games, wins, losses, draws, updated
		FROM ratings ORDER BY mode, fingerprint`, func(row pgx.CollectableRow) (dump.Record, error) {
		var r dump.Rating
		err := row.Scan(&r.Mode, &r.Fingerprint, &r.Rating, &r.Deviation, &r.Volatility, &r.Games, &r.Wins, &r.Losses, &r.Draws, &r.Updated)
		return dump.Record{Rating: &r}, err
	}, emit)
}

// exportMatches reads the seats first (a match is emitted whole, and the
// connection takes one query at a time); they are small next to replays.
func exportMatches(ctx context.Context, tx pgx.Tx, emit func(dump.Record) error) error {
	seats := map[int64][]dump.MatchPlayer{}
	err := exportRows(ctx, tx, "match players", `SELECT match_id, fingerprint, name, slot, team, place, score,
		rating_before, rating_after, deviation_before, deviation_after, games_after, left_match
		FROM match_players ORDER BY match_id, seat`, func(row pgx.CollectableRow) (dump.Record, error) {
		var id int64
		var p dump.MatchPlayer
		err := row.Scan(&id, &p.Fingerprint, &p.Name, &p.Slot, &p.Team, &p.Place, &p.Score,
			&p.RatingBefore, &p.RatingAfter, &p.DeviationBefore, &p.DeviationAfter, &p.GamesAfter, &p.Left)
		seats[id] = append(seats[id], p)
		return dump.Record{}, err
	}, func(dump.Record) error { return nil })
	if err != nil {
		return err
	}
	return exportRows(ctx, tx, "matches", `SELECT id, mode, ranked, aborted, forfeit, room, start, duration_ns, replay
		FROM matches ORDER BY id`, func(row pgx.CollectableRow) (dump.Record, error) {
		var m dump.Match
		var id, d int64
		err := row.Scan(&id, &m.Mode, &m.Ranked, &m.Aborted, &m.Forfeit, &m.Room, &m.Start, &d, &m.Replay)
		m.ID, m.Duration, m.Players = uint64(id), time.Duration(d), seats[id]
		return dump.Record{Match: &m}, err
	}, emit)
}

// importRecord inserts one record new to the database.
func importRecord(ctx context.Context, tx pgx.Tx, r dump.Record) error {
	var err error
	switch {
	case r.Player != nil:
		p := r.Player
		_, err = tx.Exec(ctx, `INSERT INTO players (fingerprint, name, key_type, first_seen, last_seen, role, renamed)
			VALUES ($1, lower($2), $3, $4, $5, $6, $7)`,
			p.Fingerprint, p.Name, p.KeyType, p.FirstSeen, p.LastSeen, p.Role, orNull(p.Renamed))
	case r.Rating != nil:
		x := r.Rating
		_, err = tx.Exec(ctx, `INSERT INTO ratings (mode, fingerprint, rating, deviation, volatility, games, wins, losses, draws, updated)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			x.Mode, x.Fingerprint, x.Rating, x.Deviation, x.Volatility, x.Games, x.Wins, x.Losses, x.Draws, x.Updated)
	case r.Match != nil:
		m := r.Match
		if m.ID == 0 || m.ID > 1<<63-1 {
			return fmt.Errorf("match id %d out of range", m.ID)
		}
		_, err = tx.Exec(ctx, `INSERT INTO matches (id, mode, ranked, aborted, forfeit, room, start, duration_ns, replay)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			int64(m.ID), m.Mode, m.Ranked, m.Aborted, m.Forfeit, m.Room, m.Start, int64(m.Duration), m.Replay)
		for i, p := range m.Players {
			if err != nil {
				break
			}
			_, err = tx.Exec(ctx, `INSERT INTO match_players (match_id, seat, fingerprint, name, slot, team, place, score,
				rating_before, rating_after, deviation_before, deviation_after, games_after, left_match)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
				int64(m.ID), i, p.Fingerprint, p.Name, p.Slot, p.Team, p.Place, p.Score,
				p.RatingBefore, p.RatingAfter, p.DeviationBefore, p.DeviationAfter, p.GamesAfter, p.Left)
		}
	case r.Replay != nil:
		if len(r.Replay.Data) == 0 {
			return fmt.Errorf("replay of match %d is empty", r.Replay.MatchID)
		}
		_, err = tx.Exec(ctx, "INSERT INTO replays (match_id, data) VALUES ($1, $2)", int64(r.Replay.MatchID), r.Replay.Data)
	case r.Ban != nil:
		b := r.Ban
		var cidr any
		if b.CIDR != "" {
			cidr = b.CIDR
		}
		_, err = tx.Exec(ctx, `INSERT INTO bans (id, fingerprint, cidr, name, reason, actor, created, expires, lifted, lifted_by)
			VALUES ($1, $2, $3::cidr, $4, $5, $6, $7, $8, $9, $10)`,
			int64(b.ID), b.Fingerprint, cidr, b.Name, b.Reason, b.Actor, b.Created, orNull(b.Expires), orNull(b.Lifted), b.LiftedBy)
	case r.Mute != nil:
		m := r.Mute
		_, err = tx.Exec(ctx, `INSERT INTO mutes (fingerprint, name, reason, actor, created, expires, auto)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			m.Fingerprint, m.Name, m.Reason, m.Actor, m.Created, orNull(m.Expires), m.Auto)
	case r.Audit != nil:
		a := r.Audit
		// The log's ids are the order entries were written in: kept, not
		// renumbered, so a second run recognises them.
		_, err = tx.Exec(ctx, `INSERT INTO audit (id, at, actor, action, target, target_id, cidr, reason, duration_ns, auto)
			OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			int64(a.ID), a.Time, a.Actor, a.Action, a.Target, a.TargetID, a.CIDR, a.Reason, int64(a.Duration), a.Auto)
	case r.Leaves != nil:
		l := r.Leaves
		_, err = tx.Exec(ctx, "INSERT INTO leaves (fingerprint, strikes, last_leave, cooldown) VALUES ($1, $2, $3, $4)",
			l.Fingerprint, l.Strikes, l.Last, l.Until)
	default:
		return fmt.Errorf("a record of no known kind")
	}
	if err != nil {
		k, _ := r.Kind()
		return fmt.Errorf("write %s: %w", k, err)
	}
	return nil
}

// orZero is a nullable time read: NULL is the zero time.
func orZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// orNull is a nullable time to write: the zero time is NULL.
func orNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Describe names the database for people: user, host, port and database,
// never the password.
func (s *Store) Describe() string { return describe(s.pool.Config().ConnConfig) }
