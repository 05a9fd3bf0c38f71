// Package spectator owns delayed feeds for watchers and replay recording and
// playback.
//
// Recording rides on a room's hooks and on a thin wrapper around the pong
// game (Recorder.Factory): the hooks run on the room goroutine, so they only
// append what changed (a paddle direction, a seat joining or leaving) and a
// state hash once a second, and hand the finished Replay off when the match
// ends. Playback re-simulates that log on a fresh game and checks the
// hashes, which is what makes a replay trustworthy and tiny at the same time.
//
// Watchers never read a room directly: a Delay per room holds its frames
// back for a fixed time (2 s in ranked rooms) so that a watcher cannot relay
// live positions to a player, and republishes them through the same
// latest-wins mailbox the room uses, so a watcher that stops reading costs
// nothing.
package spectator
