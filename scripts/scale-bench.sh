#!/bin/sh
# scale-bench.sh — the embedded store at 1×, 2×, 4×, 10× the CUAD corpus
# (docs/SCALE.md). For each factor N it builds a corpus of N copies of the 468
# CUAD contracts under new names (in a temporary directory, never in the
# repository), ingests it into a fresh store with the pakton binary, and
# measures: ingest wall and CPU time (user+sys: the machine is shared, so
# wall time depends on the load) and peak RSS, store size, index file size,
# one-shot `pakton search` wall time and peak RSS (median of 5 questions),
# and, in process, index open time and query p50/p99 over the CUAD dev
# questions (BenchmarkStoreQueries).
#
# The copies are ingested with --force: without it ingest keeps one document
# per distinct content, and an N× corpus would be stored as 1×.
#
# Usage: scripts/scale-bench.sh [FACTOR...]     (default: 1 2 4 10)
# Env:   SCALE_DIR (default /tmp/pk-scale), SHARED (default ../shared next to the repo)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$repo/../shared}
cuad=$shared/data/legalbenchrag/corpus/cuad
work=${SCALE_DIR:-/tmp/pk-scale}
factors=${*:-1 2 4 10}
[ -d "$cuad" ] || { echo "scale-bench: $cuad not found (set SHARED)" >&2; exit 1; }
mkdir -p "$work"
cd "$repo"
go build -o "$work/pakton" ./cmd/pakton
go test -c -o "$work/ingest.test" ./internal/ingest/
pk=$work/pakton
questions="Is there a cap on liability?
Can the customer terminate the agreement for convenience?
Which law governs the agreement?
Is there a non-compete or exclusivity clause?
May a party assign the agreement after a change of control?"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '| corpus | docs | characters | ingest wall (CPU) | ingest peak RSS | store on disk | index file | index build (in the ingest) | one-shot search wall (CPU), median of 5 | one-shot peak RSS | index open (in process) | query p50 / p99 (warm) | cold p50 / p99 |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for n in $factors; do
	corpus=$work/corpus/x$n
	if [ ! -d "$corpus" ]; then
		mkdir -p "$corpus.tmp"
		cp "$cuad"/*.txt "$corpus.tmp/"
		k=2
		while [ "$k" -le "$n" ]; do
			for f in "$cuad"/*.txt; do cp "$f" "$corpus.tmp/copy$k-$(basename "$f")"; done
			k=$((k + 1))
		done
		mv "$corpus.tmp" "$corpus"
	fi
	docs=$(ls "$corpus" | wc -l)
	chars=$(cat "$corpus"/*.txt | wc -m)
	st=$work/store-x$n
	rm -rf "$st"
	/usr/bin/time -f '%e %M %U %S' -o "$work/time" nice -n 10 "$pk" ingest --force --store "$st" "$corpus" > "$work/ingest-x$n.log" 2> "$work/ingest-x$n.progress"
	read -r iwall irss iusr isys < "$work/time"
	icpu=$(echo "$iusr + $isys" | bc)
	build=$(sed -n 's/^search index: .* in \(.*\)s$/\1/p' "$work/ingest-x$n.log")
	disk=$(du -sm "$st" | cut -f1)
	idx=$(du -m "$st/collections/default/cache/search.idx" | cut -f1)
	echo "$questions" | while read -r q; do
		/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$pk" search --store "$st" -k 5 "$q" > /dev/null
		read -r w r u s < "$work/time"
		echo "$w $r $(echo "$u + $s" | bc)"
	done > "$work/search-x$n"
	swall=$(cut -d' ' -f1 "$work/search-x$n" | median)
	srss=$(cut -d' ' -f2 "$work/search-x$n" | median)
	scpu=$(cut -d' ' -f3 "$work/search-x$n" | median)
	(cd "$repo/internal/ingest" && PAKTON_SCALE_STORE=$st "$work/ingest.test" -test.run '^$' -test.bench StoreQueries -test.benchtime 1x) > "$work/bench-x$n" 2>&1 || { cat "$work/bench-x$n" >&2; exit 1; }
	metric() { tr -s ' \t' '\n' < "$work/bench-x$n" | grep -B1 "^$1\$" | head -1; }
	printf '| %d× | %d | %s | %s s (%s s) | %d MB | %s MB | %s MB | %s s | %s s (%s s) | %d MB | %s ms | %s / %s ms | %s / %s ms |\n' \
		"$n" "$docs" "$chars" "$iwall" "$icpu" $((irss / 1024)) "$disk" "$idx" "$build" "$swall" "$scpu" $((srss / 1024)) \
		"$(metric load-ms)" "$(metric p50-ms)" "$(metric p99-ms)" "$(metric cold-p50-ms)" "$(metric cold-p99-ms)"
done
