package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/store"
)

// BenchmarkServeDealRoom asks a deal-room question over the whole default
// collection of PAKTON_SCALE_STORE as the web app asks it — POST …/ask,
// an evidence report, streamed — twice on one server: first with the cells
// the store's cache holds (none on a store whose cache/deal-room was
// emptied), then again (every cell cached). It reports each answer's wall
// and processor seconds (the whole process: the server's work for the
// question, its garbage collection and the stream's encoding included), the
// processor milliseconds a contract the first costs, and the progress
// events streamed. The server writes its cache and saves the reports in
// the store: give it a copy.
//
//	rm -r COPY/collections/default/cache/deal-room
//	PAKTON_SCALE_STORE=COPY go test ./internal/server/ -run '^$' -bench ServeDealRoom -benchtime 1x -timeout 1h
func BenchmarkServeDealRoom(b *testing.B) {
	dir := os.Getenv("PAKTON_SCALE_STORE")
	if dir == "" {
		b.Skip("set PAKTON_SCALE_STORE to a store directory")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	st, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	srv, err := New(ctx, Config{Store: st, NoAuth: true, Rate: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	defer func() {
		stop()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			b.Error("the server did not stop within 30 s")
		}
	}()
	base := "http://" + ln.Addr().String() + "/api/v1/collections/default"
	client := &http.Client{Timeout: time.Hour}
	// The collection opened (index, names) before the question, as after
	// the web app's first page.
	if resp, err := client.Post(base+"/search", "application/json", strings.NewReader(`{"query":"Is there a cap on liability?","k":8}`)); err != nil {
		b.Fatal(err)
	} else {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	type answer struct {
		progress, checked, cached int
		bytes                     int64
		// firstReviewed and lastProgress are when the first progress
		// event of the contracts reviewed and the last progress event
		// came, report when the report did, all since the request was
		// sent.
		firstReviewed, lastProgress, report time.Duration
	}
	ask := func() answer {
		body, _ := json.Marshal(map[string]any{"question": "Which of our contracts can be terminated for convenience?", "evidence": true})
		t0 := time.Now()
		resp, err := client.Post(base+"/ask", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var a answer
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<30)
		event := ""
		for sc.Scan() {
			line := sc.Bytes()
			a.bytes += int64(len(line)) + 1
			switch {
			case bytes.HasPrefix(line, []byte("event: ")):
				event = string(line[len("event: "):])
				switch event {
				case "progress":
					a.progress++
					a.lastProgress = time.Since(t0)
				case "report":
					a.report = time.Since(t0)
				}
			case event == "progress" && a.firstReviewed == 0 && bytes.Contains(line, []byte(`"reviewed `)):
				a.firstReviewed = time.Since(t0)
			case event == "report" && bytes.HasPrefix(line, []byte("data: ")):
				var rep struct {
					Report struct {
						DealRoom struct{ Checked, Cached int } `json:"deal_room"`
					} `json:"report"`
				}
				if err := json.Unmarshal(line[len("data: "):], &rep); err != nil {
					b.Fatal(err)
				}
				a.checked, a.cached = rep.Report.DealRoom.Checked, rep.Report.DealRoom.Cached
			case event == "error" && bytes.HasPrefix(line, []byte("data: ")):
				b.Fatalf("ask: %s", line)
			}
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
		return a
	}
	for b.Loop() {
		t0, c0 := time.Now(), processCPU()
		first := ask()
		t1, c1 := time.Now(), processCPU()
		again := ask()
		t2, c2 := time.Now(), processCPU()
		if first.checked == 0 || again.cached != again.checked {
			b.Fatalf("first %+v, again %+v", first, again)
		}
		b.ReportMetric(float64(first.checked), "docs")
		b.ReportMetric(float64(first.cached), "first-cached")
		b.ReportMetric(float64(first.progress), "progress-events")
		b.ReportMetric(t1.Sub(t0).Seconds(), "first-s")
		b.ReportMetric(first.firstReviewed.Seconds(), "first-reviewed-progress-s")
		b.ReportMetric((first.report - first.lastProgress).Seconds(), "last-progress-to-report-s")
		b.ReportMetric((c1 - c0).Seconds(), "first-cpu-s")
		b.ReportMetric(float64((c1-c0).Microseconds())/1e3/float64(first.checked), "cpu-ms/doc")
		b.ReportMetric(t2.Sub(t1).Seconds(), "cached-s")
		b.ReportMetric((c2 - c1).Seconds(), "cached-cpu-s")
		b.ReportMetric(float64(first.bytes)/1e6, "first-MB")
	}
}

// processCPU is the processor time this process has used (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
