#!/bin/sh
# serve-bench.sh — what a user of the web app waits for on a fresh `pakton serve` of a large
# store (docs/SCALE.md#the-web-app-on-a-large-store).
#
# It starts `pakton serve --no-auth` on the store and, from the moment the process is
# started, asks what the web app asks on its first page: the collections (with the
# opening's progress), then the document list and the families at once (SEQUENTIAL=1: one
# after the other), then a search, then a deal-room question over the whole collection
# (POST …/ask, evidence report, streamed), twice (NO_DEALROOM=1: not asked). Each line
# gives the request's own time and the time since the start of `serve`, and the processor
# time the server process has used so far (user + system, all its threads: its background
# work included). The load average is printed before and
# after: on a shared machine the wall times include waiting for a core; compare CPU.
#
# Usage: scripts/serve-bench.sh STORE [BIN] [PORT]
#   e.g. scripts/serve-bench.sh $SCALE_DIR/x100all/store ./pakton 18650
# The store is opened as `pakton serve` opens it (it must not be served already).
# Set WAIT=1 to wait until the opening's progress says done before the requests.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 STORE [BIN] [PORT]" >&2; exit 2; }
st=$1
bin=${2:-pakton}
port=${3:-18650}
base=http://127.0.0.1:$port
api=$base/api/v1/collections/default
tmp=$(mktemp -d)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
"$bin" serve --no-auth --rate 0 --addr 127.0.0.1:$port --store "$st" >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
since() { echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}'; }
tick=$(getconf CLK_TCK)
cpu() { awk -v t="$tick" '{printf "%.2f", ($14 + $15) / t}' "/proc/$pid/stat"; }
until curl -s -o /dev/null "$base/healthz"; do
	kill -0 $pid 2>/dev/null || { cat "$tmp/serve.log" >&2; exit 1; }
	sleep 0.05
done
echo "listening: $(since) s after start, server CPU $(cpu) s"
# req NAME CURL-ARGS…: one request, its time and the time since start.
req() {
	name=$1
	shift
	t=$(curl -s -o "$tmp/$name.out" -w '%{http_code} %{time_total} %{size_download}' "$@")
	echo "$name: HTTP $(echo "$t" | cut -d' ' -f1), $(echo "$t" | cut -d' ' -f2) s, $(echo "$t" | cut -d' ' -f3) bytes; done $(since) s after start, server CPU $(cpu) s"
}
req page "$base/"
req collections "$base/api/v1/collections"
if [ -n "${WAIT:-}" ]; then
	while grep -q '"opening"' "$tmp/collections.out" 2>/dev/null; do
		sleep 0.5
		curl -s -o "$tmp/collections.out" "$base/api/v1/collections"
	done
	echo "opened: $(since) s after start, server CPU $(cpu) s"
fi
if [ -n "${SEQUENTIAL:-}" ]; then
	req documents "$api/documents"
	req families "$api/families"
else
	# As the web app asks them: the document list and the families at once.
	req documents "$api/documents" >"$tmp/documents.line" &
	dpid=$!
	req families "$api/families"
	wait $dpid
	cat "$tmp/documents.line"
fi
req search -H 'Content-Type: application/json' -d '{"query":"Is there a cap on liability?","k":8}' "$api/search"
req search2 -H 'Content-Type: application/json' -d '{"query":"Which law governs the agreement?","k":8}' "$api/search"
if [ -n "${NO_DEALROOM:-}" ]; then
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi
q='{"question":"Which of our contracts can be terminated for convenience?","evidence":true}'
req dealroom -N -H 'Content-Type: application/json' -d "$q" "$api/ask"
echo "  progress events: $(grep -c '^event: progress' "$tmp/dealroom.out" || true); $(grep -o '"checked":[0-9]*' "$tmp/dealroom.out" | head -1), $(grep -o '"cached":[0-9]*' "$tmp/dealroom.out" | head -1)"
req dealroom2 -N -H 'Content-Type: application/json' -d "$q" "$api/ask"
echo "  $(grep -o '"checked":[0-9]*' "$tmp/dealroom2.out" | head -1), $(grep -o '"cached":[0-9]*' "$tmp/dealroom2.out" | head -1)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
