# shellcheck shell=bash
# bench_blocks/hardening.sh — `make bench`, hardening block (issue 3): C++ new/delete under three
# allocators, the sampler's own CPU. Sourced by scripts/bench.sh, which sets LIB, ROUNDS, TMP,
# NOTES and median().

NEW_BIN=build/bench/new_bench
IDLE_BIN=build/bench/idle_threads
NEW_N=20000000
if [ -x "$NEW_BIN" ]; then
    echo
    echo "C++ new/delete pair: median of $ROUNDS rounds, interleaved; $NEW_N ops"
    echo "| allocator | bare ns/op | hotpath ns/op | added ns |"
    echo "| --------- | ---------: | ------------: | -------: |"
    for alloc in glibc jemalloc tcmalloc; do
        case $alloc in
            glibc)    extra="" ;;
            jemalloc) extra=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ;;
            tcmalloc) extra=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 ;;
        esac
        if [ -n "$extra" ] && [ ! -e "$extra" ]; then echo "| $alloc | - | - | not installed |"; continue; fi
        : > "$TMP/new.$alloc.bare"; : > "$TMP/new.$alloc.hp"
        for _ in $(seq 1 "$ROUNDS"); do
            LD_PRELOAD="$extra" "$NEW_BIN" "$NEW_N" | awk '{ print $4 }' >> "$TMP/new.$alloc.bare"
            LD_PRELOAD="$LIB${extra:+ $extra}" HOTPATH_OUTPUT_FORMAT=none "$NEW_BIN" "$NEW_N" | awk '{ print $4 }' >> "$TMP/new.$alloc.hp"
        done
        b=$(median "$TMP/new.$alloc.bare"); h=$(median "$TMP/new.$alloc.hp")
        awk -v a="$alloc" -v b="$b" -v h="$h" 'BEGIN { printf "| %s | %.1f | %.1f | %+.1f |\n", a, b, h, h - b }'
    done
fi
if [ -x "$IDLE_BIN" ]; then
    echo
    echo "sampler: its own CPU while it watches idle threads for 5 s (interval 250 ms)"
    for n in 100 1000; do
        LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=json HOTPATH_REPORT=threads "$IDLE_BIN" "$n" 5 2>&1 >/dev/null |
            sed -n 's/.*"elapsed_ns":\([0-9]*\).*"profiler":{"cpu_ns":\([0-9]*\).*/\1 \2/p' |
            awk -v n="$n" -v target="$([ "$n" -le 100 ] && echo 1 || echo 3)" '{
                pct = 100 * $2 / $1
                printf "target: sampler with %d idle threads %.2f%% of a core (target < %d%%): %s\n", n, pct, target, pct < target ? "met" : "missed" }'
    done
fi
