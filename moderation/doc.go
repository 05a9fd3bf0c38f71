// Package moderation holds the rules that moderation from chat (/mute,
// /ban …) and from `ssh HOST admin …` share, so the two cannot drift apart:
// how a duration is written and read ("1d12h"), and the one access
// decision of who may act on whom.
//
// It is a leaf: no store, no sessions. Carrying an action out (persisting
// it, writing the audit log, reaching live sessions) is admin.Moderation's.
package moderation
