# shellcheck shell=bash
# bench_md.sh — sourced by scripts/bench.sh and scripts/bench_real.sh: writes a run's tables into
# BENCHMARKS.md. Each block of a run owns one section there, between the marker comments
#   <!-- bench:NAME begin ... -->  and  <!-- bench:NAME end -->
# and a run replaces only its own sections, each headed with the date and the machine it ran on,
# so the figures in a section were all measured side by side in one run. A section not there yet
# goes in before the "<!-- bench:earlier -->" marker (the hand-kept earlier runs), else at the end.
#
# Needs TMP (a scratch directory). BENCH_MD overrides the file (default BENCHMARKS.md at the top
# of the tree); BENCH_MD=none writes nothing.

BENCH_MD=${BENCH_MD:-$PWD/BENCHMARKS.md}

bench_md_machine() {    # one line: architecture, CPU model, cores, kernel, glibc
    local cpu glibc
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
    echo "$(uname -m), ${cpu:-unknown CPU}, $(nproc) cores, Linux $(uname -r), glibc ${glibc:-?}"
}

# Markdown of a block's printed output: tables and blank lines as they are, every other line a
# list item, a blank line between a table and text.
bench_md_body() {    # file
    awk '{ t = /^\|/ ? "t" : (/^[[:space:]]*$/ ? "b" : "p") }
         (t == "t" && prev == "p") || (t == "p" && prev == "t") { print "" }
         t == "p" { print "- " $0 } t != "p" { print }
         { prev = t }' "$1" | cat -s
}

bench_md_section() {    # name title output-file [what ran: rounds, pairs]
    local name=$1 title=$2 body=$3 ran=${4:-} new=$TMP/bench_md.section out=$TMP/bench_md.new
    [ "$BENCH_MD" = none ] && return 0
    {
        echo "<!-- bench:$name begin: written by scripts/$(basename "$0"); do not edit by hand -->"
        echo "### $title"
        echo
        echo "$(date '+%Y-%m-%d %H:%M %Z') · $(bench_md_machine)${ran:+ · $ran}"
        bench_md_body "$body" | sed '1{/^$/!s/^/\n/}'
        echo
        echo "<!-- bench:$name end -->"
    } > "$new"
    if [ ! -e "$BENCH_MD" ]; then
        printf '# hotpath benchmarks\n\n' > "$BENCH_MD"
    fi
    if grep -q "^<!-- bench:$name begin" "$BENCH_MD"; then
        awk -v b="<!-- bench:$name begin" -v e="<!-- bench:$name end -->" -v new="$new" '
            index($0, b) == 1 { while ((getline l < new) > 0) print l; skip = 1; next }
            skip && index($0, e) == 1 { skip = 0; next }
            !skip' "$BENCH_MD" > "$out"
    elif grep -q '^<!-- bench:earlier -->' "$BENCH_MD"; then
        awk -v new="$new" '
            index($0, "<!-- bench:earlier -->") == 1 { while ((getline l < new) > 0) print l; print "" }
            { print }' "$BENCH_MD" > "$out"
    else
        { cat "$BENCH_MD"; echo; cat "$new"; } > "$out"
    fi
    cat "$out" > "$BENCH_MD"
    echo "bench: section \"$name\" written to $BENCH_MD" >&2
}
