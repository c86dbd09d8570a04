#!/bin/bash
# bench_ab.sh — A/B of two libhotpath.so builds in the same run: for a malloc/free pair
# (alloc_bench pair), an uncontended mutex lock/unlock pair (lock_bench pair) and a 64-byte
# read from /dev/zero and write to /dev/null (io_bench read|write), N rounds of one bare
# process, one under LIB_A and one under LIB_B, interleaved (bare A B, bare A B, ...), all with
# the same bench binaries (build/bench, `make bench` builds them). Prints a Markdown table of the
# medians in ns per call, with the p10-p90 spread of each library's runs, B-A, and whether that
# difference lies within the spreads (each median inside the other's p10-p90). The table also
# goes into BENCHMARKS.md (scripts/bench_md.sh, section "ab"; BENCH_MD=none writes nothing).
#
#   make bench-ab BASE=<commit>      A = that commit's library, built here in a scratch worktree;
#                                    B = this tree's build/libhotpath.so
#   LIB_A=old/libhotpath.so LIB_B=new/libhotpath.so [N=15] scripts/bench_ab.sh
set -u
cd "$(dirname "$0")/.." || exit 1
N=${N:-15}
B=build/bench
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_ab.XXXXXX") || exit 1
trap 'git worktree remove --force "$TMP/base" 2>/dev/null; rm -rf "$TMP"' EXIT

if [ -z "${LIB_A:-}" ] && [ -n "${BASE:-}" ]; then
    echo "bench_ab.sh: building $BASE in $TMP/base ..." >&2
    git worktree add -q --detach "$TMP/base" "$BASE" &&
        make -s -C "$TMP/base" -j"$(nproc)" build/libhotpath.so >&2 || exit 1
    LIB_A=$TMP/base/build/libhotpath.so
    A_NAME="$BASE ($(git rev-parse --short "$BASE"))"
fi
: "${LIB_A:?LIB_A: path of the first libhotpath.so (or BASE: a commit to build it from)}"
LIB_B=${LIB_B:-build/libhotpath.so}
for f in "$LIB_A" "$LIB_B" $B/alloc_bench $B/lock_bench $B/io_bench; do
    [ -e "$f" ] || { echo "bench_ab.sh: $f missing" >&2; exit 1; }
done
LIB_A=$(realpath "$LIB_A"); LIB_B=$(realpath "$LIB_B")
A_NAME=${A_NAME:-$LIB_A}
B_NAME="$(realpath --relative-to=. "$LIB_B") ($(git describe --always --dirty 2>/dev/null || echo this tree))"

# The bare runs must be bare.
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(HOTPATH_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# name|command: every command prints one line whose 4th field is ns per call
LOOPS="alloc pair (malloc+free)|$B/alloc_bench pair 20000000
lock pair (lock+unlock, a second thread)|$B/lock_bench pair 20000000 threaded
io read 64 B /dev/zero|$B/io_bench read 400000
io write 64 B /dev/null|$B/io_bench write 400000"

run() {    # config file command... : appends the run's ns per call to file
    local c=$1 f=$2 out status
    shift 2
    case $c in
        bare) out=$("$@" 2>&1) ;;
        *)    out=$(LD_PRELOAD=$c HOTPATH_OUTPUT_FORMAT=none HOTPATH_METRICS_SERVER_OFF=true "$@" 2>&1) ;;
    esac
    status=$?
    if [ "$status" -ne 0 ] || [ "$(echo "$out" | wc -l)" -ne 1 ]; then
        echo "bench_ab.sh: $* under $c: $out" >&2; exit 1
    fi
    echo "$out" | awk '{ print $4 }' >> "$f"
}

# shellcheck disable=SC2086  # $cmd is words
for r in $(seq 1 "$N"); do
    echo "round $r/$N ..." >&2
    i=0
    while IFS='|' read -r _ cmd; do
        i=$((i + 1))
        run bare "$TMP/$i.bare" $cmd
        run "$LIB_A" "$TMP/$i.a" $cmd
        run "$LIB_B" "$TMP/$i.b" $cmd
    done <<< "$LOOPS"
done

# shellcheck source=scripts/bench_stats.sh
. scripts/bench_stats.sh    # median_spread

{
echo "A = $A_NAME"
echo "B = $B_NAME"
echo "$N rounds, bare/A/B interleaved; ns per call, median (p10-p90)"
echo
echo "| loop | bare ns | A ns (p10-p90) | B ns (p10-p90) | B-A ns | within spread |"
echo "| ---- | ------: | -------------: | -------------: | -----: | ------------- |"
i=0
while IFS='|' read -r name _; do
    i=$((i + 1))
    awk -v name="$name" -v bare="$(median_spread "$TMP/$i.bare" | cut -d' ' -f1)" 'BEGIN {
        split(ARGV[1], a, " "); split(ARGV[2], b, " "); ARGC = 1
        within = a[1] >= b[2] && a[1] <= b[3] && b[1] >= a[2] && b[1] <= a[3]
        printf "| %s | %.1f | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %+.1f | %s |\n", name, bare,
            a[1], a[2], a[3], b[1], b[2], b[3], b[1] - a[1],
            within ? "yes" : (b[1] > a[1] ? "no, B slower" : "no, B faster")
    }' "$(median_spread "$TMP/$i.a")" "$(median_spread "$TMP/$i.b")"
done <<< "$LOOPS"
} > "$TMP/table"
cat "$TMP/table"
# shellcheck source=scripts/bench_md.sh
. scripts/bench_md.sh
# shellcheck disable=SC2016  # the backquotes are Markdown
bench_md_section ab 'Two builds side by side (`make bench-ab`)' "$TMP/table" "$N rounds"
