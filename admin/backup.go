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
		return r.fail("could not create a spool file: %v", err)
	}
	defer func() {
		_ = f.Close()           // read-only use by now; the copy's error was already reported
		_ = os.Remove(f.Name()) // best effort: a leftover is 0600 and in the temp dir
	}()
	n, err := r.d.Store.Backup(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return r.storeFail("take the snapshot", err)
	}
	// Logged once the snapshot exists, before streaming: a client that
	// hangs up halfway may still have most of the data, so the attempt is
	// what the log must show.
	if code := r.audit(store.ActionBackup, target{}, ""); code != ExitOK {
		return code
	}
	copied, err := io.Copy(r.out, ctxReader{ctx: r.ctx, r: f})
	if err != nil {
		return r.fail("streaming stopped after %d of %d bytes: %v", copied, n, err)
	}
	fmt.Fprintf(r.errOut, "termarena: backup: %d bytes\n", n)
	return ExitOK
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
