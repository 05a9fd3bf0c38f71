package chat

import (
	"strconv"
	"time"
)

// MaxText is the longest message, in runes, after sanitising. A chat line is
// meant to be read at a glance on an 80-column terminal.
const MaxText = 280

// ChannelKey names a channel. Keys are built with the constructors below and
// compared as opaque strings.
type ChannelKey string

const (
	// LobbyChannel is heard by everyone in the lobby, and is the one channel
	// with history.
	LobbyChannel ChannelKey = "lobby"
	// WhisperChannel is the channel of direct messages. Nobody subscribes to
	// it: whispers reach every session of the sender and the recipient.
	WhisperChannel ChannelKey = "whisper"
)

// RoomChannel is the channel of the players of a room.
func RoomChannel(room string) ChannelKey { return ChannelKey("room:" + room) }

// TeamChannel is the channel of one team of a 2v2 room.
func TeamChannel(room string, team int) ChannelKey {
	return ChannelKey("team:" + room + ":" + strconv.Itoa(team))
}

// WatchChannel is the spectators' channel of a room. The server must not
// subscribe the players of a ranked room to it: spectators see the game and
// could otherwise coach (or relay positions to) one side.
func WatchChannel(room string) ChannelKey { return ChannelKey("watch:" + room) }

// Kind says what a message is, which decides how it is shown and whether
// ignores apply to it.
type Kind uint8

const (
	Say        Kind = iota // plain text on a channel
	Me                     // "/me waves": shown as "* alice waves"
	Whisper                // direct message; To names the recipient
	System                 // from the server: hints, replies, announcements
	Moderation             // a moderation action made public ("bob was muted")
	Notice                 // from the server, addressed to one member (a warning)
)

// The String methods switch rather than index a table: a package-level
// table would be mutable state shared by every Chat.
func (k Kind) String() string {
	switch k {
	case Say:
		return "say"
	case Me:
		return "me"
	case Whisper:
		return "whisper"
	case System:
		return "system"
	case Moderation:
		return "moderation"
	case Notice:
		return "notice"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ignorable reports kinds a member can silence with /ignore. What the server
// and moderators say always gets through.
func (k Kind) ignorable() bool { return k == Say || k == Me || k == Whisper }

// Message is one line of chat. Messages are immutable once sent: subscribers
// share them.
type Message struct {
	ID      uint64 // increasing per Chat; lets a view skip what it has shown
	Time    time.Time
	Channel ChannelKey
	From    string // sender's name; "" for the server
	FromID  string // sender's identity; "" for the server
	Kind    Kind
	Text    string // sanitised and filtered
	To      string // whisper recipient's name
}

// Role is what a member may do beyond chatting.
type Role uint8

const (
	Player Role = iota
	Moderator
	Admin
)

func (r Role) String() string {
	switch r {
	case Player:
		return "player"
	case Moderator:
		return "moderator"
	case Admin:
		return "admin"
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// Member is who is reading or sending, as the server identified them.
type Member struct {
	ID    string // key fingerprint, or the guest id
	Name  string // [a-z0-9_-]; guests are guest-xxxx
	Guest bool
	Role  Role
}

func (m Member) staff() bool { return m.Role >= Moderator }
