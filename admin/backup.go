package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

// runBackup streams a consistent bbolt snapshot of the data file to
// stdout: `ssh HOST admin backup > termarena.db`.
//
// Store.Backup holds a read transaction until its writer has taken every
// byte, and an SSH client can read as slowly as it likes, which would stall
// any write that needs the file to grow. So the snapshot is spooled to a
// private temporary file at disk speed first, and the slow stream reads
// that file with no transaction open. The temporary file holds every
// player's data: it is created 0600 and removed however this ends.
func runBackup(r *runner, args []string) int {
	if len(args) > 0 {
		return r.usageErr("backup takes no arguments (got %q); redirect stdout to a file", sanitize.Arg(args[0]))
	}
	f, err := os.CreateTemp(r.d.TempDir, "termarena-backup-*.db")
	if err != nil {
		return r.backupDirect(err)
	}
	defer func() {
		_ = f.Close()           // read-only use by now; the copy's error was already reported
		_ = os.Remove(f.Name()) // best effort: a leftover is 0600 and in the temp dir
	}()
	spool := &spoolWriter{w: f}
	n, err := r.d.Store.Backup(r.ctx, spool)
	if spool.err != nil {
		// A full disk is when a backup matters most, and the spool file
		// shares the data file's disk. Nothing can grow the data file
		// meanwhile, so a slow reader holding the snapshot stalls nothing.
		_ = os.Remove(f.Name())
		return r.backupDirect(spool.err)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return r.storeFail("take the snapshot", err)
	}
	// Logged once the snapshot exists, before streaming: a client that
	// hangs up halfway may still have most of the data, so the attempt is
	// what the log must show.
	if code := r.backupAudit(); code != ExitOK {
		return code
	}
	copied, err := io.Copy(r.out, ctxReader{ctx: r.ctx, r: f})
	if err != nil {
		return r.fail("streaming stopped after %d of %d bytes: %v", copied, n, err)
	}
	fmt.Fprintf(r.errOut, "termarena: backup: %d bytes\n", n)
	return ExitOK
}

// backupDirect streams the snapshot straight from the store when it could
// not be spooled (why says what failed).
func (r *runner) backupDirect(why error) int {
	fmt.Fprintf(r.errOut, "termarena: backup: no spool file (%s): streaming straight from the database\n", sanitize.Text(why.Error(), 200))
	if code := r.backupAudit(); code != ExitOK {
		return code
	}
	n, err := r.d.Store.Backup(r.ctx, r.out)
	if err != nil {
		return r.fail("streaming stopped after %d bytes: %s", n, sanitize.Text(err.Error(), 300))
	}
	fmt.Fprintf(r.errOut, "termarena: backup: %d bytes\n", n)
	return ExitOK
}

// backupAudit records the backup in the audit log. When the store cannot
// save (a full disk) the backup goes ahead, and says the entry is missing:
// refusing the one tool for that moment would help no one.
func (r *runner) backupAudit() int {
	err := r.d.Store.Audit(r.ctx, store.AuditEntry{Actor: r.actor(), Action: store.ActionBackup, Target: target{}.label()})
	if errors.Is(err, store.ErrCannotSave) {
		fmt.Fprintln(r.errOut, "termarena: backup: the server cannot save right now, so this backup is not in the audit log")
		return ExitOK
	}
	if err != nil {
		return r.fail("%s not done: the audit log was not written: %s", store.ActionBackup, sanitize.Text(err.Error(), 300))
	}
	return ExitOK
}

// spoolWriter remembers the spool file's own write error, to tell a full
// spool disk from a store that cannot be read.
type spoolWriter struct {
	w   io.Writer
	err error
}

func (s *spoolWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// ctxReader stops a copy once the session is gone, rather than reading the
// rest of the spool file into a writer that can no longer deliver it.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, errors.Join(errors.New("session ended"), err)
	}
	return c.r.Read(p)
}
