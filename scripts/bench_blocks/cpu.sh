# shellcheck shell=bash
# bench_blocks/cpu.sh — `make bench`, CPU profile block (issue 7): build/bench/cpu_bench
# (scripts/cpu_bench.c). Sourced by scripts/bench.sh, which sets LIB, ROUNDS, TMP, NOTES and
# median().

# The same fixed CPU-bound work under the preload with the CPU profile off (HOTPATH_CPU_HZ=0) and
# at the default 99 Hz, interleaved; the process's CPU seconds, median of the rounds.
CPU_BIN=build/bench/cpu_bench
if [ -x "$CPU_BIN" ]; then
    echo
    echo "CPU profile: the same CPU-bound work (process CPU seconds, median of $ROUNDS rounds)"
    echo
    echo "| threads | profile off s | 99 Hz s | slower |"
    echo "| ---: | ---: | ---: | ---: |"
    for n in 1 2; do
        : > "$TMP/cpu.$n.off"; : > "$TMP/cpu.$n.on"
        for _ in $(seq 1 "$ROUNDS"); do
            LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none HOTPATH_CPU_HZ=0 "$CPU_BIN" "$n" 6000 | awk '{ print $2 }' >> "$TMP/cpu.$n.off"
            LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$CPU_BIN" "$n" 6000 | awk '{ print $2 }' >> "$TMP/cpu.$n.on"
        done
        off=$(median "$TMP/cpu.$n.off"); on=$(median "$TMP/cpu.$n.on")
        awk -v n="$n" -v a="$off" -v b="$on" 'BEGIN { printf "| %d | %.3f | %.3f | %+.2f%% |\n", n, a, b, 100 * (b - a) / a }'
        awk -v a="$off" -v b="$on" -v n="$n" 'BEGIN { p = 100 * (b - a) / a
            printf "target: CPU profile at 99 Hz, %d thread(s), %.2f%% slower (target < 2%%): %s\n", n, p, p < 2 ? "met" : "missed" }' >> "$TMP/cpu.targets"
    done
    cat "$TMP/cpu.targets"
fi
