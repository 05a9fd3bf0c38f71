package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/termarena/termarena/store"
)

// A permission error on the data dir or the admin keys file is the usual
// first-start failure of a container: a bind-mounted host directory or a
// mounted file belongs to root, and the server runs as uid 65532. The bare
// "permission denied" names neither, so these say which uid needs access
// and the command that gives it.

func dataDirHint(err error, dir string) error {
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	uid, gid := os.Getuid(), os.Getgid()
	return fmt.Errorf("%w: termarena runs as uid %d and needs to own the data dir: chown -R %d:%d %s (for a bind mount, run that on the host directory)",
		err, uid, uid, gid, dir)
}

func adminKeysHint(err error, path string) error {
	if !errors.Is(err, fs.ErrPermission) {
		return err
	}
	uid := os.Getuid()
	return fmt.Errorf("%w: termarena runs as uid %d and cannot read the admin keys file: chown %d %s, or chmod 0644 it (public keys are no secret); for a bind mount, on the host",
		err, uid, uid, path)
}

// damageHint tells the operator of a damaged or empty database what to do:
// the server will not start on it, and starting on an empty one would
// begin a new server with every player, rating and ban gone.
func damageHint(err error) error {
	switch {
	case errors.Is(err, store.ErrEmptyFile):
		return fmt.Errorf("%w; it holds no players, ratings or bans, so termarena will not start on it: restore your latest backup into it (see \"Backups\" in the README), or, to start a new server with no players on purpose, remove the file", err)
	case errors.Is(err, store.ErrDamaged):
		return fmt.Errorf("%w; termarena will not start on it: move it aside and restore your latest backup (made with ssh HOST admin backup; see \"Backups\" in the README)", err)
	}
	return err
}

// warnOpenDataDir says in the log when the data dir is open to other
// users of the host: a new one is made 0700, but an existing one (a plain
// mkdir, a bind-mounted host directory) is used as it is. Only warned,
// not changed: the operator may have a reason, and a chmod of a mount
// point reaches beyond termarena's own files.
func warnOpenDataDir(dir string, log *slog.Logger) {
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	log.Warn(fmt.Sprintf("the data dir is open to other users of this host (mode %04o): chmod 700 %s", fi.Mode().Perm(), dir),
		"path", dir, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()))
}
