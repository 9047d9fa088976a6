package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

const (
	helperEnv    = "PAKTON_STORE_KILL_HELPER"
	helperDirEnv = "PAKTON_STORE_KILL_DIR"
	helperRound  = "PAKTON_STORE_KILL_ROUND"
)

var killCollections = []string{DefaultCollection, "deals"}

// killRecord builds version ver of document name; every file of it names the
// version, so a mix of two versions is detectable.
func killRecord(name string, ver int) *Record {
	r := rand.New(rand.NewPCG(uint64(ver), 7))
	var b strings.Builder
	fmt.Fprintf(&b, "%s version %d\n", name, ver)
	for b.Len() < 200+r.IntN(60_000) {
		fmt.Fprintf(&b, "%d.%d The Supplier shall indemnify the Customer — §%d.\n", r.IntN(20), r.IntN(9), ver)
	}
	text := b.String()
	sum := sha256.Sum256([]byte(text))
	v := strconv.Itoa(ver)
	return &Record{
		Doc:    &document.Document{ID: DocID(name), Name: name, Format: "text", Text: text},
		Tree:   &clause.Tree{Nodes: []clause.Node{{Parent: -1, Kind: clause.KindDocument, Label: v, Span: document.Span{End: len([]rune(text))}}}},
		Source: Source{Path: name, Size: int64(ver)},
		Artifacts: map[string][]byte{
			"ver":  []byte(v),
			"sha":  []byte(hex.EncodeToString(sum[:])),
			"blob": make([]byte, r.IntN(20_000)),
		},
	}
}

// checkKillRecord verifies that rec is one complete version and returns it.
func checkKillRecord(rec *Record) (int, error) {
	ver, err := strconv.Atoi(string(rec.Artifacts["ver"]))
	if err != nil {
		return 0, fmt.Errorf("artifact ver %q", rec.Artifacts["ver"])
	}
	want := killRecord(rec.Doc.Name, ver)
	sum := sha256.Sum256([]byte(rec.Doc.Text))
	switch {
	case rec.Doc.Text != want.Doc.Text:
		return 0, fmt.Errorf("text is not version %d's", ver)
	case string(rec.Artifacts["sha"]) != hex.EncodeToString(sum[:]):
		return 0, errors.New("text sha differs from the sha artifact")
	case rec.Tree == nil || rec.Tree.Nodes[0].Label != strconv.Itoa(ver):
		return 0, fmt.Errorf("tree is not version %d's", ver)
	case rec.Source.Size != int64(ver):
		return 0, fmt.Errorf("source is not version %d's", ver)
	case len(rec.Artifacts["blob"]) != len(want.Artifacts["blob"]):
		return 0, fmt.Errorf("blob is not version %d's", ver)
	}
	return ver, nil
}

// TestHelperProcess is the writer the kill test runs as a child process and
// SIGKILLs. It puts and deletes documents until killed, logging each
// operation before ("B ...") and after ("E") it runs.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("run by TestKill")
	}
	dir := os.Getenv(helperDirEnv)
	round, _ := strconv.Atoi(os.Getenv(helperRound))
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(dir), "ops.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateCollection(t.Context(), "deals"); err != nil {
		t.Fatal(err)
	}
	// Spread the moments a kill can land on over every step of a write,
	// not only the fsyncs that dominate its time.
	faultHook = func(string) error {
		if rand.IntN(3) == 0 {
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		}
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		coll := killCollections[rand.IntN(len(killCollections))]
		name := fmt.Sprintf("doc%02d.txt", rand.IntN(8))
		ver := round*100_000 + i
		var op string
		if rand.IntN(6) == 0 {
			op = fmt.Sprintf("B %s %s del\n", coll, name)
		} else {
			op = fmt.Sprintf("B %s %s put %d\n", coll, name, ver)
		}
		if _, err := logf.WriteString(op); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(op, "del\n") {
			err = s.Delete(t.Context(), coll, DocID(name))
			if errors.Is(err, ErrNotFound) {
				err = nil
			}
		} else {
			err = s.Put(t.Context(), coll, killRecord(name, ver))
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := logf.WriteString("E\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKill SIGKILLs a writing child process at random moments and checks
// after each round that the store recovers to a consistent state: every
// acknowledged write is there, the write in flight is either fully there or
// not at all, nothing else changed, no temporaries remain, and the store
// accepts new writes.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if os.Getenv(helperEnv) == "1" {
		return
	}
	base := t.TempDir()
	dir := filepath.Join(base, "store")
	const rounds = 10
	start := time.Now()
	kills := 0
	for round := 1; round <= rounds; round++ {
		if round > 5 && time.Since(start) > 10*time.Second { // a loaded machine: keep the suite bounded
			t.Logf("stopping after %d rounds to stay within the time budget", round-1)
			break
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"=1", helperDirEnv+"="+dir, helperRound+"="+strconv.Itoa(round))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(40+rand.IntN(360)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child did not die by SIGKILL (%v):\n%s", round, err, out)
		}
		kills++
		verifyAfterKill(t, dir, filepath.Join(base, "ops.log"), round)
	}
	t.Logf("%d kills in %v", kills, time.Since(start).Round(time.Millisecond))
}

// verifyAfterKill reopens the store and checks it against the child's log.
func verifyAfterKill(t *testing.T, dir, logPath string, round int) {
	t.Helper()
	// Replay the log: state after every finished operation, plus the one
	// operation that may have been in flight.
	type key struct{ coll, name string }
	state := map[key]int{} // version; absent = no document
	var inflight *struct {
		k   key
		ver int // -1: delete
	}
	var log io.Reader = strings.NewReader("")
	f, err := os.Open(logPath)
	switch {
	case err == nil:
		defer f.Close()
		log = f
	case errors.Is(err, fs.ErrNotExist):
		// Killed before it wrote its first line (a slow start under the
		// race detector on a loaded machine): nothing was begun, and the
		// store must show none of it.
	default:
		t.Fatal(err)
	}
	sc := bufio.NewScanner(log)
	ops := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 1 && fields[0] == "E":
			if inflight.ver < 0 {
				delete(state, inflight.k)
			} else {
				state[inflight.k] = inflight.ver
			}
			inflight = nil
			ops++
		case len(fields) == 1 && fields[0] == "X": // in flight when killed, did not happen
			inflight = nil
		case len(fields) >= 4 && fields[0] == "B":
			inflight = &struct {
				k   key
				ver int
			}{key{fields[1], fields[2]}, -1}
			if fields[3] == "put" {
				inflight.ver, _ = strconv.Atoi(fields[4])
			}
		default:
			t.Fatalf("bad log line %q", sc.Text())
		}
	}

	s, err := Open(dir)
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	if err := s.CreateCollection(t.Context(), "deals"); err != nil { // in case round 1 died before creating it
		t.Fatal(err)
	}
	got := map[key]int{}
	for _, coll := range killCollections {
		list, err := s.List(t.Context(), coll)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, info := range list {
			rec, err := s.Get(t.Context(), coll, info.ID)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			ver, err := checkKillRecord(rec)
			if err != nil {
				t.Fatalf("round %d: %s/%s: %v", round, coll, info.Name, err)
			}
			if info.Runes != len([]rune(rec.Doc.Text)) || info.Nodes != 1 || info.Source.Size != int64(ver) {
				t.Fatalf("round %d: %s/%s: Info %+v disagrees with the document", round, coll, info.Name, info)
			}
			if !strings.HasPrefix(info.Name, "probe") {
				got[key{coll, info.Name}] = ver
			}
		}
		if ents, _ := os.ReadDir(s.docsDir(coll)); len(ents) != len(list) {
			t.Fatalf("round %d: %s: %d directories for %d documents", round, coll, len(ents), len(list))
		}
	}
	keys := map[key]bool{}
	for k := range state {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	if inflight != nil {
		keys[inflight.k] = true
	}
	resolved := "X\n"
	for k := range keys {
		want, ok := state[k]
		have, hok := got[k]
		if inflight != nil && inflight.k == k && (inflight.ver < 0 && !hok || inflight.ver >= 0 && hok && have == inflight.ver) {
			resolved = "E\n" // the write in flight completed
			continue
		}
		if hok == ok && have == want {
			continue
		}
		t.Fatalf("round %d: %s/%s: store has version %d (present %v), log says %d (present %v), in flight %+v",
			round, k.coll, k.name, have, hok, want, ok, inflight)
	}
	if inflight != nil {
		// Record how the interrupted operation ended for the next replay.
		lf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		lf.WriteString(resolved)
		lf.Close()
	}
	assertNoTemps(t, dir)
	if inflight != nil && testing.Verbose() {
		t.Logf("round %d: killed during %+v after %d operations", round, *inflight, ops)
	}
	// The store accepts writes; this document stays in place for later rounds.
	probe := killRecord(fmt.Sprintf("probe%02d.txt", round), round)
	if err := s.Put(t.Context(), "deals", probe); err != nil {
		t.Fatalf("round %d: Put after recovery: %v", round, err)
	}
	for r := 1; r <= round; r++ {
		rec, err := s.Get(t.Context(), "deals", DocID(fmt.Sprintf("probe%02d.txt", r)))
		if err != nil {
			t.Fatalf("round %d: probe of round %d: %v", round, r, err)
		}
		if _, err := checkKillRecord(rec); err != nil {
			t.Fatalf("round %d: probe of round %d: %v", round, r, err)
		}
	}
}
