#!/bin/bash
# bench.sh — `make bench`: what libhotpath.so adds to the calls it hooks, measured against the
# bare program in the same run, block by block (scripts/bench_blocks/*.sh, each sourced here):
# alloc (issue 2), locks (4), io (5), hardening (3), cpu (7), short and shapes (28). Prints Markdown tables and a
# "target:" line per target, and writes each block's output into its own section of
# BENCHMARKS.md (scripts/bench_md.sh), headed with the date and the machine. Always exits 0 when
# the runs themselves work: a missed target is reported, not failed.
#
# Environment: BENCH_ROUNDS (default 7) rounds of every pattern in every configuration;
# BENCH_ONLY (default all), the blocks to run, e.g. BENCH_ONLY="locks io" (only their sections
# of BENCHMARKS.md are rewritten); BENCH_MD, the file to write (none = none).
set -u
cd "$(dirname "$0")/.." || exit 1

# read by the blocks
export LIB=$PWD/build/libhotpath.so
export ROUNDS=${BENCH_ROUNDS:-7}
BLOCKS=${BENCH_ONLY:-alloc locks io hardening cpu short shapes}

[ -e "$LIB" ] || { echo "bench.sh: $LIB missing; run make bench" >&2; exit 1; }
for b in $BLOCKS; do
    [ -e "scripts/bench_blocks/$b.sh" ] ||
        { echo "bench.sh: no block \"$b\" (alloc locks io hardening cpu short shapes)" >&2; exit 1; }
done

# The bare runs must be bare, whatever environment make was started from.
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(HOTPATH_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
NOTES=$TMP/notes
: > "$NOTES"

# shellcheck disable=SC2317  # called by the blocks
# shellcheck source=scripts/bench_stats.sh
. scripts/bench_stats.sh    # median, median_spread

# ---- header: where the figures come from ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "hotpath bench, $(date '+%Y-%m-%d %H:%M %Z')"
echo "machine: $(nproc) CPUs, ${cpu:-unknown CPU}, Linux $(uname -r), glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')"

# shellcheck source=scripts/bench_md.sh
. scripts/bench_md.sh

block_title() {
    case $1 in
        alloc)     echo 'Allocation hooks (`make bench`, alloc block)' ;;
        locks)     echo 'Lock hooks (`make bench`, locks block)' ;;
        io)        echo 'I/O hooks (`make bench`, io block)' ;;
        hardening) echo 'C++ new/delete and the sampler (`make bench`, hardening block)' ;;
        cpu)       echo 'CPU profile (`make bench`, cpu block)' ;;
        short)     echo 'Short-lived processes (`make bench`, short block)' ;;
        shapes)    echo 'Whole process, by shape of program (`make bench`, shapes block)' ;;
        *)         echo "$1 (\`make bench\`)" ;;
    esac
}

for b in $BLOCKS; do
    notes_before=$(wc -l < "$NOTES")
    # Printed as it runs and kept for BENCHMARKS.md. A block runs in the pipeline's subshell: what
    # it leaves for later is in files ($TMP, $NOTES), and its exit status ends the bench.
    # shellcheck source=/dev/null
    { . "scripts/bench_blocks/$b.sh"; } | tee "$TMP/block.$b.out"
    status=${PIPESTATUS[0]}
    [ "$status" -eq 0 ] || exit "$status"
    tail -n +"$((notes_before + 1))" "$NOTES" >> "$TMP/block.$b.out"
    bench_md_section "$b" "$(block_title "$b")" "$TMP/block.$b.out" "$ROUNDS rounds"
done

if [ -s "$NOTES" ]; then
    echo
    cat "$NOTES"
fi
exit 0
