// Package store is termarena's durable state as the rest of the server
// sees it: the entity values (Player, Rating, MatchRecord, Ban, Mute,
// AuditEntry, Leaves, …), one interface per entity (Players, Ratings,
// Matches, Replays, Bans, Mutes, Roles, Audit, LeaveStrikes, Maintenance)
// composed into Store, the sentinel errors every backend returns
// (ErrNotFound, ErrNameTaken, ErrInvalidName, ErrCannotSave, …), and the
// rules both backends share (names, address ranges, input bounds).
//
// Where things are:
//
//	store/           values, interfaces, errors, name rules and input
//	                 bounds (limits.go) (this package; no database)
//	store/bolt/      the default backend: one bbolt file in --data, its
//	                 schema versions and migrations, backup
//	store/postgres/  the backend for several nodes on one PostgreSQL
//	store/storetest/ the conformance suite every backend's tests run
//
// A consumer declares the few methods it calls as its own small
// interface (or names one of the entity interfaces here), never a
// backend's concrete type: only main.go picks and opens a backend.
package store
