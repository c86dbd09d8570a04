# shellcheck shell=bash
# bench_stats.sh — the figures of a file of runs, one number a line, for scripts/bench.sh (and its
# blocks) and scripts/bench_ab.sh, which source it.

median() {    # file -> median, or "-" when there is no figure
    if [ ! -s "$1" ]; then echo -; return; fi
    sort -g "$1" | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

median_spread() {    # file -> "median p10 p90" (nearest rank), or "-" when there is no figure
    if [ ! -s "$1" ]; then echo -; return; fi
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        lo = int(NR * 0.1); if (lo < NR * 0.1) lo++; if (lo < 1) lo = 1
        hi = int(NR * 0.9); if (hi < NR * 0.9) hi++
        print m, v[lo], v[hi] }'
}
