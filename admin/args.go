package admin

import (
	"github.com/termarena/termarena/moderation"
)

const (
	// maxDuration bounds every DUR: the same bound chat's /mute and /ban
	// have, as both read durations with moderation.ParseDuration.
	maxDuration = moderation.MaxDuration

	// permanent is the DUR word that makes a ban's permanence explicit,
	// so a reason starting with a number can follow it unambiguously.
	permanent = "permanent"
)
