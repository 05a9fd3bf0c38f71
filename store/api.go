package store

import (
	"context"
	"io"
	"net"
	"time"
)

// The interfaces below are what every backend implements (the bbolt file
// in this package, PostgreSQL in store/postgres) and what the conformance
// suite in store/storetest holds each of them to. They are split by
// entity so a consumer can name the slice it uses (better still, declare
// its own smaller interface where it is used); Store composes them.
//
// Every method takes a context: a backend over the network gives up when
// it ends, the bbolt one checks it before it starts work (and before a
// match end commits). Errors match this package's sentinels (ErrNotFound,
// ErrNameTaken, ErrInvalidName, ErrCannotSave, …) with errors.Is whatever
// the backend, so callers never test for a driver's errors.

// Players is player identity: first contact and returning logins, names
// and their index, profiles.
type Players interface {
	// Login records a keyed player's visit, creating the player (with the
	// first free name of NameCandidates) on first sight; created says so.
	Login(ctx context.Context, fingerprint, keyType, sshUser string) (p Player, created bool, err error)
	PlayerByFingerprint(ctx context.Context, fp string) (Player, error)
	// PlayerByName compares case-insensitively.
	PlayerByName(ctx context.Context, name string) (Player, error)
	// Rename gives fp the name newName (ErrNameTaken, ErrInvalidName, or a
	// *RenameTooSoonError when fp renamed less than every ago).
	Rename(ctx context.Context, fp, newName string, every time.Duration) (Player, error)
	CountPlayers(ctx context.Context) (int, error)
	// Profile and ProfileByName read a player with their ratings and
	// ProfileRecent newest matches.
	Profile(ctx context.Context, fp string) (Profile, error)
	ProfileByName(ctx context.Context, name string) (Profile, error)
}

// Ratings is per-mode standing. Ratings change only through
// Matches.RecordMatch, in the match's transaction.
type Ratings interface {
	// Rating is fp's rating in mode; found is false (and r NewRating's)
	// for a player with no rated game in it.
	Rating(ctx context.Context, mode, fp string) (r Rating, found bool, err error)
	// Ratings is fp's rating in every mode they played.
	Ratings(ctx context.Context, fp string) ([]Rating, error)
	// Leaderboard is the page of mode's standings from offset (0 is the
	// best; a negative one reads as 0), at most limit long (<=0: 20; at most 1000), in Standings'
	// order: rating descending, then more games, then name, then
	// fingerprint.
	Leaderboard(ctx context.Context, mode string, offset, limit int) ([]Rating, error)
	// Standings is every rated player of mode in Leaderboard's order: what
	// a rank and a player's neighbours are read from.
	Standings(ctx context.Context, mode string) ([]Rating, error)
}

// Matches is match history, written once per match end.
type Matches interface {
	// RecordMatch writes everything a match end changes in one
	// transaction (see MatchEnd) and returns the record as stored: its
	// id, and for every seat the rating and deviation before and after
	// and the games played after, so the caller needs no further read.
	// A failure anywhere, a cancelled ctx included, writes nothing.
	RecordMatch(ctx context.Context, end MatchEnd) (MatchRecord, error)
	// Match is the match with that id, or ErrNotFound.
	Match(ctx context.Context, id uint64) (MatchRecord, error)
	// Matches is fp's matches, newest first (limit as Leaderboard's).
	Matches(ctx context.Context, fp string, limit int) ([]MatchRecord, error)
	// RecentMatches is the server's newest matches that keep keeps (nil
	// keeps all), newest first, reading only as far as it must.
	RecentMatches(ctx context.Context, limit int, keep func(MatchRecord) bool) ([]MatchRecord, error)
}

// Replays is the stored recordings of matches (opaque bytes: the
// spectator package's encoding).
type Replays interface {
	// PutReplay stores data as match matchID's replay and sets the
	// match's Replay flag with it; an unknown match is ErrNotFound.
	PutReplay(ctx context.Context, matchID uint64, data []byte) error
	// Replay is match matchID's replay, or ErrNotFound.
	Replay(ctx context.Context, matchID uint64) ([]byte, error)
	// PruneReplays deletes the replays older than keepFor as of now,
	// except each player's keepPerPlayer newest, and says how many went.
	PruneReplays(ctx context.Context, keepPerPlayer int, keepFor time.Duration, now time.Time) (int, error)
}

// Bans refuse keys and address ranges at login.
type Bans interface {
	// AddBan stores b (ID assigned, CIDR normalised, Name filled) with its
	// "ban" audit entry.
	AddBan(ctx context.Context, b Ban) (Ban, error)
	// RemoveBan lifts every active ban of a fingerprint or name, each with
	// its "unban" audit entry, and says how many it lifted.
	RemoveBan(ctx context.Context, fpOrName string, by By) (int, error)
	// ActiveBan is the ban that refuses fp or ip now, if any.
	ActiveBan(ctx context.Context, fp string, ip net.IP) (Ban, bool, error)
	Bans(ctx context.Context, includeExpired bool) ([]Ban, error)
}

// Mutes stop players from chatting.
type Mutes interface {
	// SetMute replaces fp's mute, with its "mute" audit entry.
	SetMute(ctx context.Context, m Mute) error
	// RemoveMute deletes fp's mute and says whether it was still active
	// (only then with an "unmute" audit entry).
	RemoveMute(ctx context.Context, fp string, by By) (bool, error)
	ActiveMute(ctx context.Context, fp string) (Mute, bool, error)
	Mutes(ctx context.Context) ([]Mute, error)
}

// Roles are the moderators.
type Roles interface {
	// SetRole sets fp's role ("" or RoleModerator) with its "promote" or
	// "demote" audit entry when it changes; an unknown fp is ErrNotFound.
	SetRole(ctx context.Context, fp, role string, by By) (Player, error)
	Moderators(ctx context.Context) ([]Player, error)
}

// Audit is the append-only moderation log.
type Audit interface {
	// Audit appends e (ID and Time assigned).
	Audit(ctx context.Context, e AuditEntry) error
	// AuditLog is the entries at or after since, newest first.
	AuditLog(ctx context.Context, since time.Time, limit int) ([]AuditEntry, error)
}

// Moderation is bans, mutes, roles and their audit log.
type Moderation interface {
	Bans
	Mutes
	Roles
	Audit
}

// LeaveStrikes is each ranked leaver's strikes and queue cooldown, kept
// so a restart forgives no one. A match end writes the strikes it earned
// with the match (MatchEnd.Leaves); PutLeaves is for a leave counted
// while the match goes on.
type LeaveStrikes interface {
	PutLeaves(ctx context.Context, fp string, l Leaves) error
	// LoadLeaves is every stored record by fingerprint; it deletes those
	// stale says are no longer worth keeping.
	LoadLeaves(ctx context.Context, stale func(Leaves) bool) (map[string]Leaves, error)
}

// Maintenance is what an operator and the health watch ask of a backend.
type Maintenance interface {
	// Health is nil while the backend reads and writes; else an error
	// matching ErrCannotSave or ErrDamaged.
	Health(ctx context.Context) error
	// SchemaVersion is the schema version the data is at.
	SchemaVersion(ctx context.Context) (int, error)
	// Backup writes a consistent copy of everything to w (for bbolt, a
	// data file Open accepts) and says how many bytes it wrote.
	Backup(ctx context.Context, w io.Writer) (int64, error)
	// Close releases the backend; nothing may be called after it.
	Close() error
}

// Store is a whole backend: what main.go opens and hands out in slices.
type Store interface {
	Players
	Ratings
	Matches
	Replays
	Moderation
	LeaveStrikes
	Maintenance
}

// MatchEnd is everything a finished (or aborted) match writes, as one
// value written in one transaction: the record, every seat's new rating,
// the replay and the leave strikes. A crash, a full disk or a cancelled
// context leaves all of it or none of it.
type MatchEnd struct {
	// Match is the record; its ID must be 0 (the store assigns it) and
	// each seat's rating fields are filled by the store.
	Match MatchRecord
	// Rate computes the new ratings of a ranked match that was not
	// aborted (required then; never called otherwise). It is called
	// inside the transaction with the seats' current ratings in Match.Mode
	// (in Match.Players order; NewRating's for a player with none) and
	// returns one per seat with Rating, Deviation, Volatility, Games,
	// Wins, Losses and Draws updated; the store sets Updated and ignores
	// Name. Because the ratings are read in the writing transaction, two
	// matches ending together cannot lose an update. It must be pure and
	// quick: no I/O, no call back into the store (it may run more than
	// once, when a backend retries a transaction that lost a race).
	Rate func(current []Rating) ([]Rating, error)
	// Replay, when not empty, is stored as the match's replay (and
	// Match.Replay set): a match is never saved without the replay it
	// came with.
	Replay []byte
	// Leaves are the leave records the match's leavers earned, by
	// fingerprint, each replacing what was stored.
	Leaves map[string]Leaves
	// Key, when not empty, names the match across a cluster (its room id
	// and seed): a match end whose key is already stored writes nothing
	// and returns the record stored first, so a match that two nodes both
	// finish (one resumed it from the other's log while the other still
	// ran) is rated once. At most MaxMatchKeyLen bytes.
	Key string
}

// MaxMatchKeyLen bounds MatchEnd.Key.
const MaxMatchKeyLen = 200
