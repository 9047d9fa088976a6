#!/bin/sh
# oneshot-bench.sh — CPU and wall of one-shot `pakton search` (process start, open, query, print),
# several binaries back to back on the same store (docs/SCALE.md).
#
# For each of scale-bench.sh's five questions it runs every BIN five times, interleaved
# (BIN1 BIN2 … BIN1 BIN2 …), after one warm-up search, and prints per BIN the median CPU
# (perf stat's task-clock: user + system time of all threads, in seconds — /usr/bin/time's
# user+sys has 10 ms ticks) and median wall per question, then the median, min and max CPU of
# all 25 runs. The load average is printed before and after: on a shared machine compare CPU.
#
# Usage: scripts/oneshot-bench.sh STORE BIN...
#   e.g. scripts/oneshot-bench.sh $SCALE_DIR/x100all/store ./pakton-before ./pakton-after
# Needs perf and /usr/bin/time. Opens the store read-only.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 STORE BIN..." >&2; exit 2; }
st=$1
shift
q1="Is there a cap on liability?"
q2="Can the customer terminate the agreement for convenience?"
q3="Which law governs the agreement?"
q4="Is there a non-compete or exclusivity clause?"
q5="May a party assign the agreement after a change of control?"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$1" search --store "$st" -k 5 "$q1" >/dev/null
for qi in 1 2 3 4 5; do
	eval q=\$q$qi
	for r in 1 2 3 4 5; do
		i=0
		for b in "$@"; do
			i=$((i + 1))
			perf stat -x, -e task-clock -o "$tmp/p" /usr/bin/time -f '%e' -o "$tmp/t" "$b" search --store "$st" -k 5 "$q" >/dev/null
			tc=$(awk -F, '/task-clock/ {printf "%.4f", $1/1000}' "$tmp/p")
			echo "$qi $tc $(cat "$tmp/t")" >>"$tmp/$i"
		done
	done
done
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
i=0
for b in "$@"; do
	i=$((i + 1))
	printf '%s:' "$b"
	for qi in 1 2 3 4 5; do
		printf ' q%d cpu %s wall %s;' $qi "$(awk -v q=$qi '$1==q {print $2}' "$tmp/$i" | med)" "$(awk -v q=$qi '$1==q {print $3}' "$tmp/$i" | med)"
	done
	echo
	printf '  all 25 runs: cpu median %s, min %s, max %s\n' "$(awk '{print $2}' "$tmp/$i" | med)" \
		"$(awk '{print $2}' "$tmp/$i" | sort -n | head -1)" "$(awk '{print $2}' "$tmp/$i" | sort -n | tail -1)"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
