package main

import (
	"errors"
	"fmt"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres"
)

// checkStoreURL refuses a --store that is not a PostgreSQL URL, before
// anything starts: a path there (meant for --data) or a typo must not
// quietly fall back to the bbolt file. Empty is the bbolt default.
func checkStoreURL(url string) error {
	if url == "" {
		return nil
	}
	if !isPostgresURL(url) {
		return errors.New("--store (TERMARENA_STORE) wants a postgres:// or postgresql:// URL, or nothing for the bbolt file in --data")
	}
	if err := postgres.CheckURL(url); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	return nil
}

// storeName says where the durable data lives, for the log: never a
// password.
func storeName(a *app.App) string {
	if pg, ok := a.Store.(*postgres.Store); ok {
		return "PostgreSQL " + pg.Describe()
	}
	if a.Bolt != nil {
		return a.Bolt.Path()
	}
	return "?"
}

// storeHint says what to do about a PostgreSQL store the server would not
// start on.
func storeHint(err error) error {
	switch {
	case errors.Is(err, postgres.ErrUnreachable):
		return fmt.Errorf("%w: is PostgreSQL running there, and do the URL's user, password and database exist? (psql with the same URL tells)", err)
	case errors.Is(err, postgres.ErrReadOnly):
		return fmt.Errorf("%w: point --store at the primary, not a standby, and give its user INSERT, UPDATE and DELETE on termarena's tables", err)
	case errors.Is(err, store.ErrSchemaTooNew):
		return fmt.Errorf("%w: a newer termarena has migrated this database; run that version or a later one", err)
	}
	return err
}
