#!/bin/bash
# bench.sh — `make bench`: what libhotpath.so adds to malloc/free and thread create/join.
# Runs build/bench/alloc_bench (scripts/alloc_bench.c) bare, under LD_PRELOAD=libhotpath.so and
# under heaptrack, in interleaved rounds on the same machine, and prints the median ns per
# operation of each, the ns added and the ratio, as a Markdown table for README.md.
# Always exits 0 when the runs themselves work: a missed target is reported, not failed.
#
# Environment: BENCH_ROUNDS (default 7) rounds of every pattern in every configuration.
set -u
cd "$(dirname "$0")/.." || exit 1

BIN=build/bench/alloc_bench
LIB=$PWD/build/libhotpath.so
ROUNDS=${BENCH_ROUNDS:-7}
PATTERNS="pair live thread"
TARGET_NS=6

# Iterations per run: about 0.2-1.5 s per run, the whole bench under two minutes.
# heaptrack is 30-50x slower per allocation, so it gets fewer (ns/op stays comparable).
iterations() {    # pattern config
    case "$1/$2" in
        pair/heaptrack)   echo 1000000 ;;
        pair/*)           echo 20000000 ;;
        live/heaptrack)   echo 500000 ;;
        live/*)           echo 5000000 ;;
        thread/*)         echo 20000 ;;
    esac
}

for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "bench.sh: $f missing; run make bench" >&2; exit 1; }
done

# The bare runs must be bare, whatever environment make was started from.
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(HOTPATH_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

CONFIGS="bare hotpath"
HEAPTRACK=$(command -v heaptrack || true)
[ -n "$HEAPTRACK" ] && CONFIGS="$CONFIGS heaptrack"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

# ---- header: where the figures come from ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "hotpath bench, $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(nproc) CPUs, ${cpu:-unknown CPU}, Linux $(uname -r), glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')"
if [ -n "$HEAPTRACK" ]; then
    echo "heaptrack: $("$HEAPTRACK" --version 2>/dev/null | head -n 1)"
else
    echo "heaptrack: not installed"
fi
echo "median of $ROUNDS rounds, configurations interleaved; iterations per run:" \
     "pair $(iterations pair bare) (heaptrack $(iterations pair heaptrack))," \
     "live $(iterations live bare) (heaptrack $(iterations live heaptrack))," \
     "thread $(iterations thread bare)"
echo

# ---- one run: appends its ns/op to $TMP/PATTERN.CONFIG ----
NOTES=$TMP/notes
: > "$NOTES"

run_one() {    # pattern config
    local p=$1 c=$2 n out=$TMP/out err=$TMP/err status
    n=$(iterations "$p" "$c")
    case $c in
        bare)
            "$BIN" "$p" "$n" > "$out" 2> "$err" ;;
        hotpath)
            LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$BIN" "$p" "$n" > "$out" 2> "$err" ;;
        heaptrack)
            "$HEAPTRACK" -o "$TMP/heaptrack/data" "$BIN" "$p" "$n" > "$out" 2> "$err" ;;
    esac
    status=$?
    rm -rf "$TMP/heaptrack"
    if [ "$status" -ne 0 ]; then
        echo "note: $p under $c exited with status $status: $(head -n 3 "$err" | tr '\n' ' ')" >> "$NOTES"
        return
    fi
    # The line the program prints; heaptrack adds its own chatter around it.
    local line
    line=$(grep -E "^$p $n ops [0-9.]+ ns/op\$" "$out")
    if [ -z "$line" ]; then
        echo "note: $p under $c printed no result line" >> "$NOTES"
        return
    fi
    # The profiler must not change what the program prints: one line, nothing on stderr.
    if [ "$c" != heaptrack ] && { [ "$(wc -l < "$out")" -ne 1 ] || [ -s "$err" ]; }; then
        echo "note: $p under $c printed more than the program's own line: $(head -n 2 "$err" "$out" | tr '\n' ' ')" >> "$NOTES"
    fi
    echo "$line" | awk '{ print $4 }' >> "$TMP/$p.$c"
}

for r in $(seq 1 "$ROUNDS"); do
    echo "round $r/$ROUNDS ..." >&2
    for p in $PATTERNS; do
        for c in $CONFIGS; do
            run_one "$p" "$c"
        done
    done
done

median() {    # file -> median, or "-" when there is no figure
    if [ ! -s "$1" ]; then echo -; return; fi
    sort -g "$1" | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---- the table ----
row() {
    printf '| %-7s | %10s | %13s | %8s | %5s | %15s | %18s |\n' "$@"
}
row pattern "bare ns/op" "hotpath ns/op" "added ns" ratio "heaptrack ns/op" "heaptrack added ns"
row ------- ---------: ------------: -------: ----: --------------: -----------------:
for p in $PATTERNS; do
    bare=$(median "$TMP/$p.bare")
    hp=$(median "$TMP/$p.hotpath")
    ht=$(median "$TMP/$p.heaptrack")
    # shellcheck disable=SC2046  # six words, none empty
    row "$p" $(awk -v b="$bare" -v h="$hp" -v t="$ht" 'BEGIN {
        ns_b = b == "-" ? "-" : sprintf("%.1f", b)
        ns_h = h == "-" ? "-" : sprintf("%.1f", h)
        ns_t = t == "-" ? "-" : sprintf("%.1f", t)
        add_h = (b == "-" || h == "-") ? "-" : sprintf("%+.1f", h - b)
        ratio = (b == "-" || h == "-" || b <= 0) ? "-" : sprintf("%.2fx", h / b)
        add_t = (b == "-" || t == "-") ? "-" : sprintf("%+.1f", t - b)
        print ns_b, ns_h, add_h, ratio, ns_t, add_t
    }')
    echo "$p $bare $hp" >> "$TMP/summary"
done
echo

# ---- the target: a malloc/free pair at most TARGET_NS more than bare, in both patterns ----
while read -r p bare hp; do
    case $p in
        pair) what="malloc/free pair" ;;
        live) what="malloc/free pair with 100,000 live objects, random frees," ;;
        *)    continue ;;
    esac
    awk -v what="$what" -v b="$bare" -v h="$hp" -v t="$TARGET_NS" 'BEGIN {
        if (b == "-" || h == "-") { printf "target: %s: not measured\n", what; exit }
        printf "target: %s %+.1f ns (target <= %d ns): %s\n", what, h - b, t, (h - b <= t) ? "met" : "missed"
    }'
done < "$TMP/summary"

if [ -s "$NOTES" ]; then
    echo
    cat "$NOTES"
fi
exit 0
