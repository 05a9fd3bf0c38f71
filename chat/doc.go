// Package chat owns channels, chat commands, flood control, the profanity
// filter and message history.
//
// It is pure: no SSH, no store, no goroutines of its own. One *Chat serves the
// whole server and is safe for concurrent use. Sessions subscribe with Join
// and read from a bounded per-subscriber ring, so a session that stops
// reading can never hold up anyone who is talking. Moderation commands are
// parsed here, and refused at once when moderation.Allow (the one access
// decision, shared with admin) says no for someone online; the server
// carries them out through admin.Moderation, which asks again with the
// stored ranks, persists them and writes the audit log. Send returns them
// as a ModAction.
//
// Who may read a channel is the server's decision (it subscribes sessions);
// the package's part is to keep channels apart and to make sure a session
// can only speak where it is subscribed, so a spectator cannot talk into a
// ranked room and a player never hears watch:<room>.
package chat
