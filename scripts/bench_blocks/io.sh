# shellcheck shell=bash
# bench_blocks/io.sh — `make bench`, I/O view block (issue 5): a 64-byte read from /dev/zero and
# write to /dev/null. Sourced by scripts/bench.sh, which sets LIB, ROUNDS, TMP, NOTES and
# median().

# build/bench/io_bench (scripts/io_bench.c) times, inside one process, the program's read/write
# (the hook, when preloaded) against the same system call made directly, in many short
# alternating block pairs: "added" is the median of the pairs' differences, so the ±100 ns drift
# of a 1.3 µs syscall cancels. Run bare (libc's function over the bare system call: the method's
# bias, subtracted from the others), under io_passthrough.so (a preload that only forwards to
# libc), under libhotpath.so timing every call (the default) and timing one call in ten. Medians
# over the rounds.
IO_BIN=build/bench/io_bench
IO_PASS=$PWD/build/bench/io_passthrough.so
IO_N=${BENCH_IO_ITERATIONS:-400000}
IO_TARGET_NS=40
if [ -x "$IO_BIN" ] && [ -e "$IO_PASS" ]; then
    echo
    echo "I/O view: 64-byte read(2) from /dev/zero and write(2) to /dev/null, $IO_N calls per run, median of $ROUNDS rounds"
    io_one() {    # pattern config
        local p=$1 c=$2 out=$TMP/io.out line
        case $c in
            bare)     "$IO_BIN" "$p" "$IO_N" > "$out" 2>&1 ;;
            pass)     LD_PRELOAD=$IO_PASS "$IO_BIN" "$p" "$IO_N" > "$out" 2>&1 ;;
            hotpath)  LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$IO_BIN" "$p" "$IO_N" > "$out" 2>&1 ;;
            sampled)  LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none HOTPATH_IO_TIME_SAMPLING_RATE=0.1 "$IO_BIN" "$p" "$IO_N" > "$out" 2>&1 ;;
        esac
        line=$(grep -E "^$p [0-9]+ ops [0-9.]+ ns/op direct [0-9.]+ ns/op added -?[0-9.]+ ns\$" "$out")
        if [ -z "$line" ] || [ "$(wc -l < "$out")" -ne 1 ]; then
            echo "note: io $p under $c: $(head -n 2 "$out" | tr '\n' ' ')" >> "$NOTES"
            return
        fi
        echo "$line" | awk '{ print $4 }' >> "$TMP/io.$p.$c.ns"
        echo "$line" | awk '{ print $10 }' >> "$TMP/io.$p.$c.added"
    }
    for r in $(seq 1 "$ROUNDS"); do
        echo "io round $r/$ROUNDS ..." >&2
        for p in read write; do
            for c in bare pass hotpath sampled; do io_one "$p" "$c"; done
        done
    done
    printf '| %-5s | %10s | %13s | %15s | %15s | %17s | %24s |\n' call "bare ns/op" "hotpath ns/op" \
        "method bias ns" "passthrough ns" "hotpath added ns" "hotpath 1-in-10 added ns"
    printf '| %-5s | %10s | %13s | %15s | %15s | %17s | %24s |\n' ----- ---------: ------------: \
        --------------: --------------: ----------------: -----------------------:
    for p in read write; do
        b=$(median "$TMP/io.$p.bare.ns"); h=$(median "$TMP/io.$p.hotpath.ns")
        bias=$(median "$TMP/io.$p.bare.added"); pass=$(median "$TMP/io.$p.pass.added")
        add=$(median "$TMP/io.$p.hotpath.added"); smp=$(median "$TMP/io.$p.sampled.added")
        awk -v p="$p" -v b="$b" -v h="$h" -v bias="$bias" -v pass="$pass" -v add="$add" -v smp="$smp" 'BEGIN {
            f = "%.1f"; g = "%+.1f"
            printf "| %-5s | %10s | %13s | %15s | %15s | %17s | %24s |\n", p,
                b == "-" ? "-" : sprintf(f, b), h == "-" ? "-" : sprintf(f, h),
                bias == "-" ? "-" : sprintf(g, bias),
                (pass == "-" || bias == "-") ? "-" : sprintf(g, pass - bias),
                (add == "-" || bias == "-") ? "-" : sprintf(g, add - bias),
                (smp == "-" || bias == "-") ? "-" : sprintf(g, smp - bias)
        }'
        echo "$p $bias $pass $add" >> "$TMP/io.summary"
    done
    echo
    while read -r p bias pass add; do
        awk -v p="$p" -v bias="$bias" -v pass="$pass" -v add="$add" -v t="$IO_TARGET_NS" 'BEGIN {
            if (bias == "-" || add == "-") { printf "target: 64-byte %s, every call timed: not measured\n", p; exit }
            printf "target: 64-byte %s, every call timed %+.1f ns (target <= %d ns): %s", p, add - bias, t, (add - bias <= t) ? "met" : "missed"
            if (pass != "-") printf "; a preload that only forwards adds %+.1f ns here, hotpath itself %+.1f ns", pass - bias, add - pass
            printf "\n"
        }'
    done < "$TMP/io.summary"
else
    echo "note: $IO_BIN or $IO_PASS missing; run make bench" >> "$NOTES"
fi
