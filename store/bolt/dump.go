package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/store"
	// Aliased: the package's tests have a helper named export.
	export "github.com/termarena/termarena/store/dump"
)

// Export emits every record of the file, kind by kind in export.Kinds'
// order, from one read transaction: a consistent copy even while the
// server runs. It reads the stored records as they are (no pruning of
// stale leave strikes, lifted and expired bans kept as history).
func (s *Store) Export(ctx context.Context, emit func(export.Record) error) error {
	err := s.view(ctx, func(tx *bbolt.Tx) error { return exportTx(ctx, tx, emit) })
	if err != nil {
		return fmt.Errorf("store: export %s: %w", s.path, err)
	}
	return nil
}

// Import adds to the file every record of src it does not hold yet, in
// one write transaction: an error anywhere (a conflict, a record the file
// cannot take, src failing, ctx ending) writes nothing. See export.Merge for
// what counts as already there.
func (s *Store) Import(ctx context.Context, src func(emit func(export.Record) error) error) (export.Counts, error) {
	var counts export.Counts
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		m := export.NewMerge()
		if err := exportTx(ctx, tx, m.Have); err != nil {
			return fmt.Errorf("read what is there: %w", err)
		}
		var maxMatch, maxBan, maxAudit uint64
		err := src(func(r export.Record) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			isNew, err := m.Add(r)
			if err != nil || !isNew {
				return err
			}
			switch {
			case r.Match != nil:
				maxMatch = max(maxMatch, r.Match.ID)
			case r.Ban != nil:
				maxBan = max(maxBan, r.Ban.ID)
			case r.Audit != nil:
				maxAudit = max(maxAudit, r.Audit.ID)
			}
			return importRecord(tx, r)
		})
		if err != nil {
			return err
		}
		// The ids came with the records: the buckets' sequences move past
		// them so the next match, ban or entry gets a fresh one.
		for name, top := range map[string]uint64{bucketMatches: maxMatch, bucketBans: maxBan, bucketAudit: maxAudit} {
			b := tx.Bucket([]byte(name))
			if top > b.Sequence() {
				if err := b.SetSequence(top); err != nil {
					return fmt.Errorf("%s sequence: %w", name, err)
				}
			}
		}
		counts = m.Counts()
		return ctx.Err()
	})
	if err != nil {
		return export.Counts{}, fmt.Errorf("store: import into %s: %w", s.path, err)
	}
	return counts, nil
}

// exportTx emits the records tx holds, kind by kind.
func exportTx(ctx context.Context, tx *bbolt.Tx, emit func(export.Record) error) error {
	each := func(bucket string, fn func(k, v []byte) error) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			return fmt.Errorf("bucket %s missing", bucket)
		}
		return b.ForEach(func(k, v []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return fn(k, v)
		})
	}
	id := func(bucket string, k []byte) (uint64, error) {
		if len(k) != 8 {
			return 0, fmt.Errorf("%s key %x: bad length", bucket, k)
		}
		return binary.BigEndian.Uint64(k), nil
	}
	steps := []struct {
		bucket string
		fn     func(k, v []byte) error
	}{
		{bucketPlayers, func(k, v []byte) error {
			rec, err := decodePlayer(v)
			if err != nil {
				return err
			}
			return emit(export.Record{Player: &export.Player{Fingerprint: string(k), Name: rec.Name, KeyType: rec.KeyType,
				FirstSeen: rec.FirstSeen, LastSeen: rec.LastSeen, Role: rec.Role, Renamed: rec.Renamed}})
		}},
		{bucketRatings, func(k, v []byte) error {
			mode, fp, ok := bytes.Cut(k, []byte{0})
			if !ok {
				return fmt.Errorf("%s key %q: no mode", bucketRatings, k)
			}
			rec, err := decodeRating(v)
			if err != nil {
				return err
			}
			return emit(export.Record{Rating: &export.Rating{Mode: string(mode), Fingerprint: string(fp), Rating: rec.Rating,
				Deviation: rec.Deviation, Volatility: rec.Volatility, Games: rec.Games, Wins: rec.Wins,
				Losses: rec.Losses, Draws: rec.Draws, Updated: rec.Updated}})
		}},
		{bucketMatches, func(k, v []byte) error {
			n, err := id(bucketMatches, k)
			if err != nil {
				return err
			}
			rec, err := decodeMatch(v)
			if err != nil {
				return fmt.Errorf("match %d: %w", n, err)
			}
			m := rec.match(n)
			d := &export.Match{ID: n, Mode: m.Mode, Ranked: m.Ranked, Aborted: m.Aborted, Forfeit: m.Forfeit,
				Room: m.Room, Start: m.Start, Duration: m.Duration, Replay: m.Replay}
			for _, p := range m.Players {
				d.Players = append(d.Players, export.MatchPlayer{Fingerprint: p.Fingerprint, Name: p.Name,
					Slot: p.Slot, Team: p.Team, Place: p.Place, Score: p.Score,
					RatingBefore: p.RatingBefore, RatingAfter: p.RatingAfter,
					DeviationBefore: p.DeviationBefore, DeviationAfter: p.DeviationAfter,
					GamesAfter: p.GamesAfter, Left: p.Left})
			}
			return emit(export.Record{Match: d})
		}},
		{bucketReplays, func(k, v []byte) error {
			n, err := id(bucketReplays, k)
			if err != nil {
				return err
			}
			// A copy: v is bbolt's memory, valid only in the transaction.
			return emit(export.Record{Replay: &export.Replay{MatchID: n, Data: bytes.Clone(v)}})
		}},
		{bucketBans, func(k, v []byte) error {
			n, err := id(bucketBans, k)
			if err != nil {
				return err
			}
			rec, err := decodeBan(v)
			if err != nil {
				return fmt.Errorf("ban %d: %w", n, err)
			}
			b := rec.ban(n)
			return emit(export.Record{Ban: &export.Ban{ID: n, Fingerprint: b.Fingerprint, CIDR: b.CIDR, Name: b.Name,
				Reason: b.Reason, Actor: b.Actor, Created: b.Created, Expires: b.Expires, Lifted: b.Lifted, LiftedBy: b.LiftedBy}})
		}},
		{bucketMutes, func(k, v []byte) error {
			rec, err := decodeMute(v)
			if err != nil {
				return err
			}
			return emit(export.Record{Mute: &export.Mute{Fingerprint: string(k), Name: rec.Name, Reason: rec.Reason,
				Actor: rec.Actor, Created: rec.Created, Expires: rec.Expires, Auto: rec.Auto}})
		}},
		{bucketAudit, func(k, v []byte) error {
			n, err := id(bucketAudit, k)
			if err != nil {
				return err
			}
			rec, err := decodeAudit(v)
			if err != nil {
				return fmt.Errorf("audit entry %d: %w", n, err)
			}
			return emit(export.Record{Audit: &export.Audit{ID: n, Time: rec.Time, Actor: rec.Actor, Action: rec.Action,
				Target: rec.Target, TargetID: rec.TargetID, CIDR: rec.CIDR, Reason: rec.Reason,
				Duration: rec.Duration, Auto: rec.Auto}})
		}},
		{bucketLeaves, func(k, v []byte) error {
			rec, err := decodeRecord[leavesRecord](v, "leaves")
			if err != nil {
				return err
			}
			return emit(export.Record{Leaves: &export.Leaves{Fingerprint: string(k), Strikes: rec.Strikes,
				Last: rec.Last, Until: rec.Until}})
		}},
	}
	for _, st := range steps {
		if err := each(st.bucket, st.fn); err != nil {
			return err
		}
	}
	return nil
}

// importRecord writes one record new to the file, with its index entries,
// checked as the store's own writes check them.
func importRecord(tx *bbolt.Tx, r export.Record) error {
	bucket := func(name string) *bbolt.Bucket { return tx.Bucket([]byte(name)) }
	putJSON := func(b *bbolt.Bucket, key []byte, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return b.Put(key, raw)
	}
	switch {
	case r.Player != nil:
		p := r.Player
		if err := store.CheckFingerprint(p.Fingerprint); err != nil {
			return err
		}
		// Not ValidateName: a name an older build allowed stays the
		// player's, as it does in the file it came from.
		name := store.NormalizeName(p.Name)
		if name == "" {
			return fmt.Errorf("player %s: no name", p.Fingerprint)
		}
		rec := playerRecord{V: recordVersion, Name: name, KeyType: p.KeyType, FirstSeen: p.FirstSeen.UTC(),
			LastSeen: p.LastSeen.UTC(), Role: p.Role, Renamed: p.Renamed.UTC()}
		if err := bucket(bucketNames).Put([]byte(name), []byte(p.Fingerprint)); err != nil {
			return fmt.Errorf("index name %s: %w", name, err)
		}
		return putPlayer(bucket(bucketPlayers), []byte(p.Fingerprint), rec)
	case r.Rating != nil:
		x := r.Rating
		rt := store.Rating{Mode: x.Mode, Fingerprint: x.Fingerprint, Rating: x.Rating, Deviation: x.Deviation,
			Volatility: x.Volatility, Games: x.Games, Wins: x.Wins, Losses: x.Losses, Draws: x.Draws, Updated: x.Updated.UTC()}
		if err := errors.Join(store.CheckMode(x.Mode), store.CheckFingerprint(x.Fingerprint), store.CheckRating(rt)); err != nil {
			return fmt.Errorf("rating of %s in %s: %w", x.Fingerprint, x.Mode, err)
		}
		return putRating(bucket(bucketRatings), rt)
	case r.Match != nil:
		d := r.Match
		if d.ID == 0 {
			return fmt.Errorf("a match with id 0")
		}
		m := store.MatchRecord{ID: d.ID, Mode: d.Mode, Ranked: d.Ranked, Aborted: d.Aborted, Forfeit: d.Forfeit,
			Room: d.Room, Start: d.Start.UTC(), Duration: d.Duration, Replay: d.Replay}
		for _, p := range d.Players {
			m.Players = append(m.Players, store.MatchPlayer{Fingerprint: p.Fingerprint, Name: p.Name, Slot: p.Slot,
				Team: p.Team, Place: p.Place, Score: p.Score, RatingBefore: p.RatingBefore, RatingAfter: p.RatingAfter,
				Left: p.Left, GamesAfter: p.GamesAfter, DeviationBefore: p.DeviationBefore, DeviationAfter: p.DeviationAfter})
		}
		if err := putJSON(bucket(bucketMatches), matchKey(d.ID), newMatchRecord(m)); err != nil {
			return fmt.Errorf("match %d: %w", d.ID, err)
		}
		for _, p := range d.Players {
			if p.Fingerprint == "" {
				continue
			}
			if err := bucket(bucketPlayerMatches).Put(playerMatchKey(p.Fingerprint, d.ID), []byte{}); err != nil {
				return fmt.Errorf("index match %d for %s: %w", d.ID, p.Fingerprint, err)
			}
		}
		return nil
	case r.Replay != nil:
		if len(r.Replay.Data) == 0 || len(r.Replay.Data) > store.MaxReplayLen {
			return fmt.Errorf("replay of match %d: %d bytes, want 1 to %d", r.Replay.MatchID, len(r.Replay.Data), store.MaxReplayLen)
		}
		if bucket(bucketMatches).Get(matchKey(r.Replay.MatchID)) == nil {
			return fmt.Errorf("replay of match %d: %w: no such match", r.Replay.MatchID, store.ErrNotFound)
		}
		return bucket(bucketReplays).Put(matchKey(r.Replay.MatchID), r.Replay.Data)
	case r.Ban != nil:
		d := r.Ban
		if d.ID == 0 {
			return fmt.Errorf("a ban with id 0")
		}
		if err := errors.Join(store.CheckFingerprint(d.Fingerprint), store.CheckActor(d.Actor)); err != nil {
			return fmt.Errorf("ban %d: %w", d.ID, err)
		}
		b := store.Ban{ID: d.ID, Fingerprint: d.Fingerprint, CIDR: d.CIDR, Name: d.Name, Reason: d.Reason, Actor: d.Actor,
			Created: d.Created.UTC(), Expires: d.Expires.UTC(), Lifted: d.Lifted.UTC(), LiftedBy: d.LiftedBy}
		if b.CIDR != "" {
			prefix, err := store.ParseCIDR(b.CIDR)
			if err != nil {
				return fmt.Errorf("ban %d: %w", d.ID, err)
			}
			b.CIDR = prefix.String()
		}
		if err := putBan(bucket(bucketBans), b); err != nil {
			return err
		}
		if err := bucket(bucketBanFingerprints).Put(playerMatchKey(b.Fingerprint, b.ID), []byte{}); err != nil {
			return fmt.Errorf("index ban %d: %w", b.ID, err)
		}
		// Only unlifted bans are in the range index (RemoveBan takes them
		// out), as the login check expects.
		if b.CIDR != "" && b.Lifted.IsZero() {
			if err := bucket(bucketBanRanges).Put(matchKey(b.ID), []byte(b.CIDR)); err != nil {
				return fmt.Errorf("index ban %d range: %w", b.ID, err)
			}
		}
		return nil
	case r.Mute != nil:
		d := r.Mute
		if err := errors.Join(store.CheckFingerprint(d.Fingerprint), store.CheckActor(d.Actor)); err != nil {
			return fmt.Errorf("mute of %s: %w", d.Fingerprint, err)
		}
		return putJSON(bucket(bucketMutes), []byte(d.Fingerprint), muteRecord{V: recordVersion, Name: d.Name,
			Reason: d.Reason, Actor: d.Actor, Created: d.Created.UTC(), Expires: d.Expires.UTC(), Auto: d.Auto})
	case r.Audit != nil:
		d := r.Audit
		e := store.AuditEntry{ID: d.ID, Time: d.Time.UTC(), Actor: d.Actor, Action: d.Action, Target: d.Target,
			TargetID: d.TargetID, CIDR: d.CIDR, Reason: d.Reason, Duration: d.Duration, Auto: d.Auto}
		if d.ID == 0 {
			return fmt.Errorf("an audit entry with id 0")
		}
		if err := store.CheckEntry(e); err != nil {
			return fmt.Errorf("audit entry %d: %w", d.ID, err)
		}
		return putJSON(bucket(bucketAudit), matchKey(d.ID), auditRecord{V: recordVersion, Time: e.Time, Actor: e.Actor,
			Action: e.Action, Target: e.Target, TargetID: e.TargetID, CIDR: e.CIDR, Reason: e.Reason,
			Duration: e.Duration, Auto: e.Auto})
	case r.Leaves != nil:
		d := r.Leaves
		if err := store.CheckFingerprint(d.Fingerprint); err != nil {
			return fmt.Errorf("leave strikes: %w", err)
		}
		return putJSON(bucket(bucketLeaves), []byte(d.Fingerprint), leavesRecord{V: recordVersion, Strikes: d.Strikes,
			Last: d.Last.UTC(), Until: d.Until.UTC()})
	}
	return fmt.Errorf("a record of no known kind")
}
