package store

import (
	"errors"
	"fmt"
	"time"
)

// Errors callers are expected to test for with errors.Is.
var (
	// ErrInUse means another handle (in this or another process) holds the
	// data file's lock. Two writers on one bbolt file would corrupt it, so
	// admin tasks must go through the running server instead.
	ErrInUse = errors.New("data dir is in use by another termarena process")
	// ErrNotFound means no record matched the fingerprint or name.
	ErrNotFound = errors.New("not found")
	// ErrNameTaken means another player already holds the name.
	ErrNameTaken = errors.New("name is taken")
	// ErrInvalidName is matched by every error ValidateName returns.
	ErrInvalidName = errors.New("invalid name")
	// ErrSchemaTooNew means the file was written by a newer build. Opening it
	// with this one could silently drop or mangle fields it does not know.
	ErrSchemaTooNew = errors.New("data file schema is newer than this build supports")
)

// ErrCannotSave means a write transaction could not be committed: the file
// could not take it (no space left on the device, an I/O error). What was
// already saved still reads; the write is lost, and nothing half-written
// stays (bbolt rolls the transaction back).
var ErrCannotSave = errors.New("the server cannot save right now")

// BucketDamageError says which bucket of the file could not be read.
type BucketDamageError struct {
	Bucket string
	Err    error
}

func (e *BucketDamageError) Error() string {
	return fmt.Sprintf("bucket %q is damaged: %v", e.Bucket, e.Err)
}

// Unwrap lets errors.Is(err, ErrDamaged) match.
func (e *BucketDamageError) Unwrap() error { return e.Err }

var (
	// ErrDamaged means the data file is not a whole bbolt database: it was
	// cut short (a full disk while copying, a partial restore), its meta
	// pages do not check out, or reading it faulted. Opening it anyway
	// would crash the process or serve from garbage; the way back is a
	// backup.
	ErrDamaged = errors.New("the database file is damaged")
	// ErrEmptyFile means the data file exists and holds 0 bytes. bbolt
	// would silently make a new, empty database of it — every player,
	// rating and ban gone and nothing said — so Open refuses; a new
	// database is made only where there is no file at all.
	ErrEmptyFile = errors.New("the database file is empty (0 bytes)")
)

// Player is a keyed player's identity record.
type Player struct {
	Fingerprint string // "SHA256:…" of the SSH key; the identity
	Name        string // display name, lower-case, unique
	KeyType     string // e.g. "ssh-ed25519"
	FirstSeen   time.Time
	LastSeen    time.Time
	Role        string // "" or "moderator"
}

// ActionRename is the audit action of a player taking a new name. Rename
// writes it in the same transaction as the change.
const ActionRename = "rename"

// RenameTooSoonError refuses a rename within the interval of the last one.
type RenameTooSoonError struct{ Next time.Time }

func (e *RenameTooSoonError) Error() string {
	return "renamed too recently; the next rename is possible at " + e.Next.UTC().Format(time.RFC3339)
}

// RoleModerator is the only role the store knows besides "" (a player).
// Admins are not a role: they are whoever holds a key in the operator's
// admin keys file, so a stolen data file cannot make anyone an admin.
const RoleModerator = "moderator"

// Audit actions. The store writes the first six itself, in the same
// transaction as the change they describe; the rest have no stored state
// and are recorded by their callers through Audit.
const (
	ActionBan      = "ban"
	ActionUnban    = "unban"
	ActionMute     = "mute"
	ActionUnmute   = "unmute"
	ActionPromote  = "promote"
	ActionDemote   = "demote"
	ActionKick     = "kick"
	ActionWarn     = "warn"
	ActionAnnounce = "announce"
	ActionBackup   = "backup"
)

// By says who made a moderation change and why. Every write that changes
// moderation state without carrying this itself (RemoveBan, RemoveMute,
// SetRole) takes one and turns it into the audit entry committed in the
// same transaction as the change; AddBan and SetMute take theirs from the
// Ban or Mute. Actor is required, so an unattributed change cannot be
// written and no caller can forget the audit log.
type By struct {
	Actor  string // name of the admin or moderator, or of the rule for an automatic action
	Reason string
	Auto   bool // made by the server's own rules (the spam filter), not by a person
}

// Ban refuses a player's key, and optionally an address range, at login.
type Ban struct {
	ID          uint64 // assigned by AddBan; must be 0 when adding
	Fingerprint string // required: the banned key
	// CIDR, optional, also refuses every connection from that range
	// ("203.0.113.0/24") or single address ("203.0.113.7"). AddBan stores
	// it normalised: masked, with the prefix length ("203.0.113.7/32").
	CIDR string
	// Name is the player's name when banned; AddBan fills it in when empty
	// and the fingerprint is a known player.
	Name          string
	Reason, Actor string // Actor is required
	Created       time.Time
	Expires       time.Time // zero = permanent
	Lifted        time.Time // set by RemoveBan; zero while not lifted
	LiftedBy      string
}

// ActiveAt reports whether the ban refuses logins at t. An expired or
// lifted ban never applies again, so nothing has to clean them up.
func (b Ban) ActiveAt(t time.Time) bool {
	return b.Lifted.IsZero() && (b.Expires.IsZero() || t.Before(b.Expires))
}

// Mute stops a player from chatting.
type Mute struct {
	Fingerprint string
	// Name is the player's name when muted; SetMute fills it in when empty.
	Name          string
	Reason, Actor string // Actor is required
	Created       time.Time
	Expires       time.Time // zero = until lifted
	Auto          bool      // set by the spam filter rather than a person
}

// ActiveAt reports whether the mute silences the player at t.
func (m Mute) ActiveAt(t time.Time) bool { return m.Expires.IsZero() || t.Before(m.Expires) }

// AuditEntry is one line of the moderation log.
type AuditEntry struct {
	ID     uint64    // assigned when written; must be 0 when passed to Audit
	Time   time.Time // set from the store's clock when written
	Actor  string    // who acted (required)
	Action string    // one of the Action constants, or a caller's own (required)
	// Target is who or what the action was aimed at as a reader would name
	// it: the player's name at the time, or the fingerprint when the store
	// knows no name. Empty for an action aimed at nobody (announce).
	Target string
	// TargetID is the target's fingerprint (or a guest's session id), which
	// unlike a name never changes.
	TargetID string
	CIDR     string // the address range of a ban, if it had one
	Reason   string // for warn and announce, the text that was sent
	Duration time.Duration
	Auto     bool
}

// Rating is one player's standing in one ranked mode ("pong-1v1",
// "pong-ffa4", "pong-2v2").
type Rating struct {
	Mode        string
	Fingerprint string
	Name        string  // filled from players on read; not stored in the rating record
	Rating      float64 // unrounded (display rounds)
	Deviation   float64 // Glicko-2 RD as of Updated (inactivity since then is the reader's to add)
	Volatility  float64 // Glicko-2 σ
	Games       int
	Wins        int
	Losses      int
	Draws       int
	Updated     time.Time // the last rated game
}

// NewRating is the standing of a player with no rated game in mode.
func NewRating(mode, fp string) Rating {
	return Rating{Mode: mode, Fingerprint: fp, Rating: InitialRating, Deviation: InitialDeviation, Volatility: InitialVolatility}
}

// MatchPlayer is one seat of a recorded match.
type MatchPlayer struct {
	// Fingerprint is the player's key; "" for a guest, which only an
	// unranked match may have. Guests get no history and no rating.
	Fingerprint string
	// Name is the name at match time; RecordMatch fills an empty one from
	// players, so a later rename does not rewrite history.
	Name  string
	Slot  int
	Team  int
	Place int // 1 = best; ties share a place
	Score int
	// RatingBefore and RatingAfter are equal when the match is unrated or
	// aborted, and InitialRating for a player with no rating in the mode.
	RatingBefore, RatingAfter float64
	Left                      bool // left or did not return within the grace period (forfeit)
	// GamesAfter is how many rated games the player had in the mode after
	// the match; 0 in records written before it was kept, and for guests.
	GamesAfter int
	// DeviationBefore and DeviationAfter are the Glicko-2 deviations
	// around the match (what makes a rating provisional, "1512?"); 0 in
	// records written before Glicko-2 (Elo's), and for guests.
	DeviationBefore, DeviationAfter float64
}

// MatchRecord is one finished (or aborted) match.
type MatchRecord struct {
	ID       uint64 // assigned by RecordMatch; must be 0 when recording
	Mode     string // "pong-1v1"… for ranked; "casual-1v1"… for casual
	Ranked   bool
	Aborted  bool // the server stopped mid-match: no rating change
	Forfeit  bool
	Room     string
	Start    time.Time
	Duration time.Duration
	Players  []MatchPlayer
	Replay   bool // a replay is stored under the same id (MatchEnd.Replay)
}

// Leaves is a player's record of leaving ranked matches: the unforgiven
// strikes as of Last (the most recent leave) and the end of the queue
// cooldown that leave earned. How strikes decay is the lobby's rule; the
// store only keeps what it was given.
type Leaves struct {
	Strikes int
	Last    time.Time
	Until   time.Time
}

// ProfileRecent is how many recent matches a profile lists, on screen and
// from `ssh HOST profile` alike.
const ProfileRecent = 20

// Profile is what a player's profile shows: who they are, their rating in
// every mode they played, and their recent matches, newest first.
type Profile struct {
	Player  Player
	Ratings []Rating
	Matches []MatchRecord
}

const (
	// InitialRating is the rating of a player with no rated game in a mode.
	// It equals rating.Initial, repeated so the store does not depend on
	// the rating maths.
	InitialRating = 1500.0
	// InitialDeviation and InitialVolatility are a newcomer's Glicko-2
	// deviation and volatility (rating.InitialDeviation and
	// rating.InitialVolatility, repeated for the same reason).
	InitialDeviation  = 500.0
	InitialVolatility = 0.09
)
