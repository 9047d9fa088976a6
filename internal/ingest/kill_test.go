package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// Environment of the child process TestIngestKilled starts.
const (
	envKillChildStore = "PAKTON_TEST_KILL_STORE"
	envKillChildSrc   = "PAKTON_TEST_KILL_SRC"
)

// TestIngestKillChild is the child of TestIngestKilled: it ingests a
// directory into a store and exits. It does nothing in a normal test run.
func TestIngestKillChild(t *testing.T) {
	dir, src := os.Getenv(envKillChildStore), os.Getenv(envKillChildSrc)
	if dir == "" || src == "" {
		t.Skip("runs only as the child of TestIngestKilled")
	}
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Progress lines tell the parent when to kill.
	opt := Options{Progress: func(p Progress) { fmt.Printf("progress %d\n", p.Done) }}
	if _, err := Ingest(context.Background(), st, "kill", []string{src}, opt); err != nil {
		t.Fatal(err)
	}
}

// TestIngestKilled SIGKILLs an ingesting process at random moments, then
// reopens the store and checks it: every listed document reads back whole
// and its segment decodes. Between rounds some files change, so kills also
// land in the middle of replacing documents. A final ingest must complete
// and store every file's current content.
func TestIngestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	const files = 40
	write := func(i, version int) {
		writeFile(t, src, fmt.Sprintf("contract-%02d.txt", i), []byte(contractText(i*100+version, 12+i%8)))
	}
	for i := range files {
		write(i, 0)
	}
	storeDir := filepath.Join(dir, "store")
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d", seed)

	deadline := time.Now().Add(12 * time.Second)
	var killedN, completed int
	for round := 1; round <= 6 && time.Now().Before(deadline); round++ {
		for range 8 { // change some files so the next run replaces them
			write(rng.IntN(files), round)
		}
		// Kill after a random number of finished files plus a random few
		// milliseconds, so the kill lands inside a later file's work or Put.
		target := 1 + rng.IntN(files-1)
		pause := time.Duration(rng.IntN(8000)) * time.Microsecond
		how := "completed"
		switch killed, err := killChild(t, exe, storeDir, src, target, pause); {
		case killed:
			how = fmt.Sprintf("killed %v after file %d", pause, target)
			killedN++
		case err != nil:
			t.Fatalf("round %d: child failed: %v", round, err)
		default:
			completed++
		}
		n := verifyStore(t.Context(), t, storeDir, "kill")
		t.Logf("round %d: %s; store holds %d documents, consistent", round, how, n)
		if t.Failed() {
			return
		}
	}
	if killedN == 0 {
		t.Logf("no child was killed mid-run (all %d completed first): the machine is fast; consistency was still checked", completed)
	}

	// A re-run after the kills completes and stores every file's current bytes.
	st, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Ingest(context.Background(), st, "kill", []string{src}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := sum.Count(StatusFailed); n > 0 {
		t.Errorf("re-run: %d files failed: %v", n, sum.Err())
	}
	infos, err := st.List(t.Context(), "kill")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != files {
		t.Errorf("after the re-run the store holds %d documents, want %d", len(infos), files)
	}
	for _, in := range infos {
		data, err := os.ReadFile(filepath.Join(src, in.Name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if in.Source.SHA256 != hex.EncodeToString(h[:]) {
			t.Errorf("%s: stored version is not the file's current content", in.Name)
		}
	}
	st.Close()
	verifyStore(t.Context(), t, storeDir, "kill")
	t.Logf("%d runs killed, %d completed; re-run: %s", killedN, completed, sum.String())
}

// killChild runs TestIngestKillChild ingesting src into storeDir and
// SIGKILLs it pause after it reports target finished files. killed says
// whether it was killed; err is the child's failure when it ran to the end.
func killChild(t *testing.T, exe, storeDir, src string, target int, pause time.Duration) (killed bool, err error) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestIngestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envKillChildStore+"="+storeDir, envKillChildSrc+"="+src)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reached := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var n int
			if _, err := fmt.Sscanf(sc.Text(), "progress %d", &n); err == nil && n >= target {
				reached <- true
				io.Copy(io.Discard, out)
				return
			}
		}
		reached <- false
	}()
	if <-reached {
		time.Sleep(pause)
		killed = cmd.Process.Signal(syscall.SIGKILL) == nil
	}
	err = cmd.Wait()
	if killed {
		return true, nil
	}
	return false, err
}
