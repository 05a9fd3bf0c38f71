package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/termarena/termarena/store"
)

// Rename gives the player with key fingerprint fp the name name, unless
// they renamed less than every ago. The refusals a player should read are
// returned as the store words them, unwrapped: an error matching
// store.ErrInvalidName (its text explains the rule), store.ErrNameTaken,
// or a *store.RenameTooSoonError.
func (s *Service) Rename(ctx context.Context, fp, name string, every time.Duration) (store.Player, error) {
	if err := ctx.Err(); err != nil {
		return store.Player{}, err
	}
	p, err := s.store.Rename(ctx, fp, name, every)
	var soon *store.RenameTooSoonError
	if err != nil && !errors.Is(err, store.ErrInvalidName) && !errors.Is(err, store.ErrNameTaken) && !errors.As(err, &soon) {
		return store.Player{}, fmt.Errorf("service: rename %s: %w", fp, err)
	}
	return p, err
}
