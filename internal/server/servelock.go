package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/filelock"
)

// One server per store. A second "pakton serve" on the same store resumed
// the first one's running job and deleted its upload in progress as an
// orphan; both sides of that keep state (jobs, uploads) that assumes they
// are alone. So New takes an exclusive lock on <store>/serve.lock for the
// server's lifetime and refuses to start when another process holds it.
// The lock is an flock: it goes when the process dies, however it dies.
// The CLI's own writers (ingest, keys) use the store's and the key file's
// locks and may run beside a server.

// lockServe takes the store's server lock and writes this process's id
// into it, or says which process holds it.
func lockServe(storeDir string) (*os.File, error) {
	path := filepath.Join(storeDir, "serve.lock")
	f, err := filelock.Open(path)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			who := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
					who = fmt.Sprintf("process %d", pid)
				}
			}
			return nil, fmt.Errorf("server: another pakton server (%s) is already serving the store %s; stop it first, or give this one another --store", who, storeDir)
		}
		return nil, fmt.Errorf("server: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
