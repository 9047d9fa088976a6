#!/bin/sh
# scale-bench.sh — pakton's embedded store at N× the CUAD corpus (docs/SCALE.md).
#
# For each factor N it builds a corpus of N distinct copies of the 468 CUAD
# contracts ("pakton eval copies": copy k ≥ 2 of a contract has every party
# renamed; the corpus and the results go in corpus/xNall and xNall), ingests
# it into a fresh store, and measures, each step with
# /usr/bin/time (wall, user+sys CPU, peak RSS; the machine is shared, so CPU
# time is the number to compare):
#   - ingest (including bringing the search index up to date and merging);
#   - store and index size on disk;
#   - adding one more contract, and deleting it again (pakton ingest FILE,
#     pakton docs rm), and that a search sees it right after;
#   - pakton docs optimize (learning the word associations again);
#   - one-shot "pakton search" (median of five questions);
#   - in process: query p50/p99 over the CUAD dev questions, words only and
#     with the review detectors' passages first (as pakton search ranks),
#     and the share of them routed to the contracts they name (routes.tsv:
#     each question's route);
#   - an offline review of the whole collection with the built-in playbook.
# It prints one table row per factor and keeps every log in $SCALE_DIR.
#
# Every step leaves a marker when it finishes, so a run that was stopped
# (or a machine that rebooted) resumes where it was: run the same command
# again. Long steps print progress lines. Meant to run unattended under
# nice, e.g.
#
#   SCALE_DIR=$HOME/pakton-scale nohup nice -n 10 scripts/scale-bench.sh 1 10 100 > run.log 2>&1 &
#
# Usage: scripts/scale-bench.sh [FACTOR...]     (default: 1 10)
# Env:   SCALE_DIR (default $TMPDIR/pakton-scale; never inside the repository;
#        100× needs about 30 GB there),
#        SHARED (default ../shared next to the repository)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$repo/../shared}
cuad=$shared/data/legalbenchrag/corpus/cuad
work=${SCALE_DIR:-${TMPDIR:-/tmp}/pakton-scale}
factors=${*:-1 10}
[ -d "$cuad" ] || { echo "scale-bench: $cuad not found (set SHARED)" >&2; exit 1; }
case "$work" in "$repo"/*) echo "scale-bench: SCALE_DIR must be outside the repository" >&2; exit 1 ;; esac
mkdir -p "$work/bin"
cd "$repo"
if [ ! -x "$work/bin/pakton" ] || [ -n "${REBUILD:-}" ]; then
	go build -o "$work/bin/pakton" ./cmd/pakton
	go test -c -o "$work/bin/ingest.test" ./internal/ingest/
	go test -c -o "$work/bin/review.test" ./internal/review/
fi
pk=$work/bin/pakton
questions="Is there a cap on liability?
Can the customer terminate the agreement for convenience?
Which law governs the agreement?
Is there a non-compete or exclusivity clause?
May a party assign the agreement after a change of control?"

log() { echo "$(date -u +%H:%M:%S) scale-bench: $*"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timed NAME CMD…: runs CMD under /usr/bin/time into $dir/NAME.time ("wall rss_kb user sys").
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$dir/$name.time" "$@"
}
cpu() { awk '{printf "%.2f", $3 + $4}' "$dir/$1.time"; }
wall() { awk '{printf "%.1f", $1}' "$dir/$1.time"; }
rss() { awk '{printf "%d", $2 / 1024}' "$dir/$1.time"; }
done_() { [ -f "$dir/$1.done" ]; }
mark() { touch "$dir/$1.done"; }

for n in $factors; do
	dir=$work/x${n}all
	corpus=$work/corpus/x${n}all
	st=$dir/store
	mkdir -p "$dir"
	if [ ! -f "$corpus/.done" ]; then
		log "x$n: writing $n distinct copies of the corpus into $corpus"
		rm -rf "$corpus"
		"$pk" eval copies --from "$cuad" --copies "$n" --out "$corpus"
		touch "$corpus/.done"
	fi
	docs=$(ls "$corpus" | wc -l)
	if ! done_ ingest; then
		# A first run ingests with --force (copies identical to another file
		# are stored too); a resumed one skips what is stored already.
		force=--force
		[ -d "$st" ] && force=
		log "x$n: ingesting $docs contracts (progress in $dir/ingest.progress)"
		timed ingest "$pk" ingest $force --store "$st" "$corpus" > "$dir/ingest.log" 2> "$dir/ingest.progress"
		mark ingest
	fi
	idx=$st/collections/default/cache/index
	if ! done_ onemore; then
		# One more contract: a further distinct copy of the first file, in a
		# directory of its own so nothing else is walked.
		log "x$n: adding one contract, then deleting it"
		rm -rf "$dir/one" && mkdir -p "$dir/one"
		"$pk" eval copies --from "$cuad" --copies "$((n + 1))" --out "$dir/one.tmp" > /dev/null 2>&1 || true
		# the first such copy whose text is not already in the collection
		f=$(python3 -c "
import hashlib, os, sys
have = {hashlib.md5(open(os.path.join('$corpus', x), 'rb').read()).hexdigest() for x in os.listdir('$corpus') if x.endswith('.txt')}
for x in sorted(os.listdir('$dir/one.tmp')):
    if x.startswith('copy$((n + 1))-') and hashlib.md5(open(os.path.join('$dir/one.tmp', x), 'rb').read()).hexdigest() not in have:
        print(x); break
")
		cp "$dir/one.tmp/$f" "$dir/one/"
		rm -rf "$dir/one.tmp"
		timed add "$pk" ingest --store "$st" "$dir/one" > "$dir/add.log" 2>&1
		"$pk" docs --store "$st" --json > "$dir/docs.json"
		id=$(python3 -c "import json,sys; print([d['id'] for d in json.load(open('$dir/docs.json')) if d['name']=='$f'][0])")
		echo "$id" > "$dir/added.id"
		# Searchable right after: a question naming it is routed to it.
		"$pk" search --store "$st" --json -k 1 "Is there a cap on liability? (in $f)" > "$dir/add-search.json" || true
		timed delete "$pk" docs rm --store "$st" "$id" > "$dir/delete.log" 2>&1
		mark onemore
	fi
	if ! done_ optimize; then
		# What an operator (or pakton serve, in the background) does after
		# small changes: learn the word associations of the index as it is
		# now, so one-shot searches look them up.
		log "x$n: pakton docs optimize"
		timed optimize "$pk" docs optimize --store "$st" > "$dir/optimize.log" 2>&1
		mark optimize
	fi
	if ! done_ search; then
		log "x$n: one-shot searches"
		i=0
		echo "$questions" | while read -r q; do
			i=$((i + 1))
			timed "search$i" "$pk" search --store "$st" -k 5 "$q" > /dev/null
		done
		mark search
	fi
	if ! done_ inproc; then
		log "x$n: in-process queries (CUAD dev questions, twice)"
		(cd "$repo/internal/ingest" && PAKTON_SCALE_STORE=$st PAKTON_ROUTES=$dir/routes.tsv nice "$work/bin/ingest.test" -test.run '^$' -test.bench StoreQueries -test.benchtime 1x -test.timeout 6h) > "$dir/inproc.log" 2>&1
		(cd "$repo/internal/review" && PAKTON_SCALE_STORE=$st nice "$work/bin/review.test" -test.run '^$' -test.bench StoreQueriesWithDetectors -test.benchtime 1x -test.timeout 6h) > "$dir/inproc-det.log" 2>&1
		mark inproc
	fi
	if ! done_ review; then
		log "x$n: offline review of the collection with the built-in playbook (resumable)"
		timed review "$pk" review --store "$st" --offline --format json --out "$dir/review" > "$dir/review.log" 2> "$dir/review.progress"
		mark review
	fi
	storemb=$(du -sm "$st" | cut -f1)
	idxmb=$(du -sm "$idx" | cut -f1)
	segs=$(python3 -c "import json; print(len(json.load(open('$idx/COMMIT'))['segments']))")
	for i in 1 2 3 4 5; do echo "$(wall search$i) $(cpu search$i) $(rss search$i)"; done > "$dir/search.all"
	metric() { tr -s ' \t' '\n' < "$1" | grep -B1 "^$2\$" | head -1; }
	# Searchable right after adding: the first hit of a question naming the
	# new contract's file is in it.
	routed=$(python3 -c "import json; r=json.load(open('$dir/add-search.json')); print('yes' if r['hits'] and r['hits'][0]['doc_id']==open('$dir/added.id').read().strip() else 'no')" 2>/dev/null || echo "?")
	printf '| %d× | %d | %s s (%s s) / %d MB | %s MB | %s MB (%s segments) | %s s CPU / %d MB (found: %s) | %s s CPU / %d MB | %s s (%s s) / %d MB | %s s (%s s) / %s MB | %s / %s ms | %s / %s ms | %s s (%s s) / %d MB |\n' \
		"$n" "$docs" "$(wall ingest)" "$(cpu ingest)" "$(rss ingest)" "$storemb" "$idxmb" "$segs" \
		"$(cpu add)" "$(rss add)" "$routed" "$(cpu delete)" "$(rss delete)" "$(wall optimize)" "$(cpu optimize)" "$(rss optimize)" \
		"$(cut -d' ' -f1 "$dir/search.all" | median)" "$(cut -d' ' -f2 "$dir/search.all" | median)" "$(cut -d' ' -f3 "$dir/search.all" | median)" \
		"$(metric "$dir/inproc.log" p50-ms)" "$(metric "$dir/inproc.log" p99-ms)" \
		"$(metric "$dir/inproc-det.log" p50-ms)" "$(metric "$dir/inproc-det.log" p99-ms)" \
		"$(wall review)" "$(cpu review)" "$(rss review)" | tee "$dir/row.md"
	echo "x$n: routed $(metric "$dir/inproc.log" routed-%) % of the dev questions (p99 $(metric "$dir/inproc.log" routed-p99-ms) ms); the others, whole collection: p50 $(metric "$dir/inproc.log" whole-p50-ms) / p99 $(metric "$dir/inproc.log" whole-p99-ms) ms" | tee -a "$dir/row.md"
done
