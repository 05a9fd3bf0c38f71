// Package dump is the portable export of everything a termarena store
// keeps (players and their names and roles, ratings, matches, replays,
// bans, mutes, the audit log, leave strikes), as versioned JSON lines that
// any backend can write and read. It is what `termarena migrate` copies
// through and what `admin backup` writes on PostgreSQL.
//
// A backend offers two things over it: an export that emits every record
// it holds, and an import that adds the records it does not hold yet.
// Import goes through Merge, which keeps the copy idempotent: a record
// already there unchanged is skipped and counted as such, and one whose
// key is taken by different content (or a name held by another key) is a
// *ConflictError, so a second run changes nothing and a run into a store
// that has moved on overwrites nothing.
//
// Records carry their ids (match, ban and audit ids) so a copy keeps
// every link (a replay to its match, a profile's history) and a second run
// can recognise what it copied. The store interfaces cannot do that: they
// assign ids, clocks and audit entries themselves, as they must when
// serving.
package dump

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Format names the file kind in the header line; Version is this build's
// format version. A file of a newer version is refused (ErrTooNew) rather
// than read with fields dropped.
const (
	Format  = "termarena-dump"
	Version = 1
)

// ErrTooNew is a dump written by a newer build.
var ErrTooNew = errors.New("the dump was written by a newer termarena")

// ErrCutShort is a dump that stops before its end line: what is there
// may be read, but it is not everything that was exported.
var ErrCutShort = errors.New("the dump is cut short")

// ErrNotDump is input that does not start with a dump's header line.
var ErrNotDump = errors.New("not a termarena dump")

// Header is the first line of a dump.
type Header struct {
	Format  string    `json:"format"`
	V       int       `json:"v"`
	Written time.Time `json:"written"`
	// From says which backend wrote it ("bolt", "postgres"), for people.
	From string `json:"from,omitempty"`
}

// Player is a keyed player with their name and role.
type Player struct {
	Fingerprint string    `json:"fp"`
	Name        string    `json:"name"`
	KeyType     string    `json:"key_type,omitempty"`
	FirstSeen   time.Time `json:"first_seen"`
	LastSeen    time.Time `json:"last_seen"`
	Role        string    `json:"role,omitempty"`
	// Renamed is the last rename, which the rename interval counts from.
	Renamed time.Time `json:"renamed,omitzero"`
}

// Rating is one player's standing in one mode.
type Rating struct {
	Mode        string    `json:"mode"`
	Fingerprint string    `json:"fp"`
	Rating      float64   `json:"rating"`
	Deviation   float64   `json:"deviation"`
	Volatility  float64   `json:"volatility"`
	Games       int       `json:"games"`
	Wins        int       `json:"wins"`
	Losses      int       `json:"losses"`
	Draws       int       `json:"draws"`
	Updated     time.Time `json:"updated"`
}

// Match is a match record with its seats.
type Match struct {
	ID       uint64        `json:"id"`
	Mode     string        `json:"mode"`
	Ranked   bool          `json:"ranked,omitempty"`
	Aborted  bool          `json:"aborted,omitempty"`
	Forfeit  bool          `json:"forfeit,omitempty"`
	Room     string        `json:"room,omitempty"`
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	Replay   bool          `json:"replay,omitempty"`
	Players  []MatchPlayer `json:"players"`
}

// MatchPlayer is one seat of a match.
type MatchPlayer struct {
	Fingerprint     string  `json:"fp,omitempty"`
	Name            string  `json:"name,omitempty"`
	Slot            int     `json:"slot"`
	Team            int     `json:"team"`
	Place           int     `json:"place"`
	Score           int     `json:"score"`
	RatingBefore    float64 `json:"rating_before"`
	RatingAfter     float64 `json:"rating_after"`
	DeviationBefore float64 `json:"deviation_before,omitempty"`
	DeviationAfter  float64 `json:"deviation_after,omitempty"`
	GamesAfter      int     `json:"games_after,omitempty"`
	Left            bool    `json:"left,omitempty"`
}

// Replay is a match's recording: opaque bytes (base64 in the file).
type Replay struct {
	MatchID uint64 `json:"match_id"`
	Data    []byte `json:"data"`
}

// Ban is a ban, lifted or not.
type Ban struct {
	ID          uint64    `json:"id"`
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

// Mute is a player's mute.
type Mute struct {
	Fingerprint string    `json:"fp"`
	Name        string    `json:"name,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Actor       string    `json:"actor"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires,omitzero"`
	Auto        bool      `json:"auto,omitempty"`
}

// Audit is one entry of the moderation log.
type Audit struct {
	ID       uint64        `json:"id"`
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

// Leaves is a ranked leaver's strikes and queue cooldown.
type Leaves struct {
	Fingerprint string    `json:"fp"`
	Strikes     int       `json:"strikes"`
	Last        time.Time `json:"last"`
	Until       time.Time `json:"until"`
}

// Record is one line after the header: exactly one field is set.
type Record struct {
	Player *Player `json:"player,omitempty"`
	Rating *Rating `json:"rating,omitempty"`
	Match  *Match  `json:"match,omitempty"`
	Replay *Replay `json:"replay,omitempty"`
	Ban    *Ban    `json:"ban,omitempty"`
	Mute   *Mute   `json:"mute,omitempty"`
	Audit  *Audit  `json:"audit,omitempty"`
	Leaves *Leaves `json:"leaves,omitempty"`
	// End is the last line, written by Close: a file without it was cut
	// short (a full disk, a dropped connection) and is refused.
	End *End `json:"end,omitempty"`
}

// End closes a dump with how many records it holds.
type End struct {
	Records int64 `json:"records"`
}

// Kind is what a record holds; Kinds lists them in the order an export
// writes them, which is also an order an import can insert in (a match
// before its replay).
type Kind int

const (
	KindPlayer Kind = iota
	KindRating
	KindMatch
	KindReplay
	KindBan
	KindMute
	KindAudit
	KindLeaves
	numKinds
)

var kindNames = [numKinds]string{"players", "ratings", "matches", "replays", "bans", "mutes", "audit entries", "leave strikes"}

func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Kind says what r holds; ok is false unless exactly one field is set.
func (r Record) Kind() (k Kind, ok bool) {
	n := 0
	for i, set := range []bool{r.Player != nil, r.Rating != nil, r.Match != nil, r.Replay != nil,
		r.Ban != nil, r.Mute != nil, r.Audit != nil, r.Leaves != nil} {
		if set {
			k, n = Kind(i), n+1
		}
	}
	return k, n == 1
}

// key identifies r within its kind: what a second copy of it must match.
func (r Record) key() string {
	switch {
	case r.Player != nil:
		return r.Player.Fingerprint
	case r.Rating != nil:
		return r.Rating.Mode + "\x00" + r.Rating.Fingerprint
	case r.Match != nil:
		return fmt.Sprint(r.Match.ID)
	case r.Replay != nil:
		return fmt.Sprint(r.Replay.MatchID)
	case r.Ban != nil:
		return fmt.Sprint(r.Ban.ID)
	case r.Mute != nil:
		return r.Mute.Fingerprint
	case r.Audit != nil:
		return fmt.Sprint(r.Audit.ID)
	case r.Leaves != nil:
		return r.Leaves.Fingerprint
	}
	return ""
}

// describe names r for a message.
func (r Record) describe() string {
	k, _ := r.Kind()
	switch k {
	case KindPlayer:
		return fmt.Sprintf("player %s (%s)", r.Player.Name, r.Player.Fingerprint)
	case KindRating:
		return fmt.Sprintf("rating of %s in %s", r.Rating.Fingerprint, r.Rating.Mode)
	case KindMatch:
		return fmt.Sprintf("match %d", r.Match.ID)
	case KindReplay:
		return fmt.Sprintf("replay of match %d", r.Replay.MatchID)
	case KindBan:
		return fmt.Sprintf("ban %d", r.Ban.ID)
	case KindMute:
		return fmt.Sprintf("mute of %s", r.Mute.Fingerprint)
	case KindAudit:
		return fmt.Sprintf("audit entry %d", r.Audit.ID)
	case KindLeaves:
		return fmt.Sprintf("leave strikes of %s", r.Leaves.Fingerprint)
	}
	return "record"
}

// digest is a hash of r's content as both backends can store it: times in
// UTC to the microsecond (PostgreSQL's precision), so a record copied from
// bbolt (nanoseconds) and back compares equal to its source.
func (r Record) digest() [sha256.Size]byte {
	c := r.Normalized()
	raw, err := json.Marshal(c)
	if err != nil {
		// Every field is a plain value; Marshal cannot fail on them.
		panic(fmt.Sprintf("dump: digest: %v", err))
	}
	return sha256.Sum256(raw)
}

// micro is t as a backend stores it.
func micro(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// Normalized is a copy of r with every time as both backends keep it
// (UTC, to the microsecond): what a copy of r reads back as.
func (r Record) Normalized() Record {
	switch {
	case r.Player != nil:
		p := *r.Player
		p.FirstSeen, p.LastSeen, p.Renamed = micro(p.FirstSeen), micro(p.LastSeen), micro(p.Renamed)
		return Record{Player: &p}
	case r.Rating != nil:
		x := *r.Rating
		x.Updated = micro(x.Updated)
		return Record{Rating: &x}
	case r.Match != nil:
		m := *r.Match
		m.Start = micro(m.Start)
		if len(m.Players) == 0 {
			m.Players = nil
		}
		return Record{Match: &m}
	case r.Ban != nil:
		b := *r.Ban
		b.Created, b.Expires, b.Lifted = micro(b.Created), micro(b.Expires), micro(b.Lifted)
		return Record{Ban: &b}
	case r.Mute != nil:
		m := *r.Mute
		m.Created, m.Expires = micro(m.Created), micro(m.Expires)
		return Record{Mute: &m}
	case r.Audit != nil:
		a := *r.Audit
		a.Time = micro(a.Time)
		return Record{Audit: &a}
	case r.Leaves != nil:
		l := *r.Leaves
		l.Last, l.Until = micro(l.Last), micro(l.Until)
		return Record{Leaves: &l}
	}
	return r
}

// Writer writes a dump: the header, then one record a line.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
	n   int64 // records written
	cw  *countingWriter
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter writes the header to w; from names the backend.
func NewWriter(w io.Writer, from string, now time.Time) (*Writer, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	dw := &Writer{w: bw, enc: json.NewEncoder(bw), cw: cw}
	dw.enc.SetEscapeHTML(false)
	if err := dw.enc.Encode(Header{Format: Format, V: Version, Written: now.UTC(), From: from}); err != nil {
		return nil, fmt.Errorf("dump: write header: %w", err)
	}
	return dw, nil
}

// Write adds one record.
func (w *Writer) Write(r Record) error {
	if _, ok := r.Kind(); !ok {
		return errors.New("dump: write: a record holds exactly one thing")
	}
	if err := w.enc.Encode(r); err != nil {
		return fmt.Errorf("dump: write %s: %w", r.describe(), err)
	}
	w.n++
	return nil
}

// Close flushes what is buffered and says how many bytes reached the
// underlying writer in all.
func (w *Writer) Close() (int64, error) {
	err := w.enc.Encode(Record{End: &End{Records: w.n}})
	if err == nil {
		err = w.w.Flush()
	}
	if err != nil {
		err = fmt.Errorf("dump: write: %w", err)
	}
	return w.cw.n, err
}

// IsDump reports whether the start of a file (its first bytes) looks like
// a dump rather than something else (a bbolt file): it begins with '{'.
func IsDump(prefix []byte) bool {
	return len(bytes.TrimLeft(prefix, " \t\r\n")) > 0 && bytes.TrimLeft(prefix, " \t\r\n")[0] == '{'
}

// Read checks r's header and calls emit for every record, in file order.
// A line that is not a record of this version (an unknown field
// included: it would be dropped) is an error naming the line.
func Read(r io.Reader, emit func(Record) error) (Header, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line, err := br.ReadBytes('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		if errors.Is(err, io.EOF) {
			return Header{}, fmt.Errorf("dump: empty input: %w", ErrNotDump)
		}
		return Header{}, fmt.Errorf("dump: read header: %w", err)
	}
	var h Header
	if json.Unmarshal(line, &h) != nil || h.Format != Format {
		return Header{}, fmt.Errorf("dump: the first line is not a %s header: %w", Format, ErrNotDump)
	}
	if h.V > Version {
		return h, fmt.Errorf("dump: format version %d, this build reads up to %d: %w", h.V, Version, ErrTooNew)
	}
	if h.V < 1 {
		return h, fmt.Errorf("dump: format version %d: %w", h.V, ErrNotDump)
	}
	var records int64
	var end *End
	for n := 2; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if end != nil {
				return h, fmt.Errorf("dump: line %d: a record after the end line", n)
			}
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			var rec Record
			if derr := dec.Decode(&rec); derr != nil {
				return h, fmt.Errorf("dump: line %d: %w", n, derr)
			}
			if rec.End != nil {
				if rec.End.Records != records {
					return h, fmt.Errorf("dump: the end line counts %d records, the file holds %d", rec.End.Records, records)
				}
				end = rec.End
				continue
			}
			records++
			if _, ok := rec.Kind(); !ok {
				return h, fmt.Errorf("dump: line %d: a record holds exactly one thing", n)
			}
			if eerr := emit(rec); eerr != nil {
				return h, eerr
			}
		}
		if errors.Is(err, io.EOF) {
			if end == nil {
				return h, fmt.Errorf("dump: no end line after %d records: %w", records, ErrCutShort)
			}
			return h, nil
		}
		if err != nil {
			return h, fmt.Errorf("dump: line %d: %w", n, err)
		}
	}
}
