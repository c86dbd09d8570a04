# shellcheck shell=bash
# bench_blocks/short.sh — `make bench`, short-lived processes block (issue 28): what a process
# that lives a few milliseconds pays, whole process against whole process, each profiled process
# writing its JSON report (a %p file in a scratch directory, as a user's script would). Sourced by
# scripts/bench.sh, which sets LIB, ROUNDS, TMP, NOTES and median().
#
# - fork children (build/bench/fork_bench, scripts/fork_bench.c) that allocate 1 KB and end with
#   exit, and with _exit: microseconds per child, fork to reaped;
# - bash running /bin/true 200 times; and the same under hotpath-run (its launcher, the run's
#   directory and its one report, text, to a file);
# each bare and preloaded in turn, ROUNDS rounds; the median of each, and their ratio.
FORK_BIN=build/bench/fork_bench
FORK_N=200
LOOP='for i in $(seq 200); do /bin/true; done'
if [ -x "$FORK_BIN" ]; then
    echo
    echo "short-lived processes: median of $ROUNDS rounds, interleaved; $FORK_N fork children per round, 200 /bin/true per bash loop"
    ms_of() {    # command... -> wall milliseconds
        local s e
        s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
        echo "$(( (e - s) / 1000 ))" | awk '{ printf "%.1f\n", $1 / 1000 }'
    }
    for r in $(seq 1 "$ROUNDS"); do
        echo "short round $r/$ROUNDS ..." >&2
        out=$TMP/short.out; rm -rf "$out"; mkdir -p "$out"
        for how in exit _exit; do
            "$FORK_BIN" "$how" "$FORK_N" | awk '{ print $(NF - 3) }' >> "$TMP/short.fork.$how.bare"
            LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH="$out/%p.json" \
                "$FORK_BIN" "$how" "$FORK_N" | awk '{ print $(NF - 3) }' >> "$TMP/short.fork.$how.hp"
        done
        ms_of bash -c "$LOOP" >> "$TMP/short.loop.bare"
        ms_of env LD_PRELOAD="$LIB" HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH="$out/%p.%n.json" \
            bash -c "$LOOP" >> "$TMP/short.loop.hp"
        ms_of ./hotpath-run.sh -o "$out/run.txt" bash -c "$LOOP" >> "$TMP/short.loop.run"
        rm -rf "$out"
    done
    echo "| process | bare | hotpath | ratio | target |"
    echo "| ------- | ---: | ------: | ----: | ------ |"
    short_row() {    # name unit bare-file hp-file target
        local b h
        b=$(median "$3"); h=$(median "$4")
        awk -v n="$1" -v u="$2" -v b="$b" -v h="$h" -v t="$5" 'BEGIN {
            r = b > 0 ? h / b : 0
            printf "| %s | %.1f %s | %.1f %s | %.2fx | at most %.1fx: %s |\n", n, b, u, h, u, r, t, r <= t ? "met" : "missed" }'
    }
    short_row "fork child, 1 KB, exit" "us" "$TMP/short.fork.exit.bare" "$TMP/short.fork.exit.hp" 1.5
    short_row "fork child, 1 KB, _exit" "us" "$TMP/short.fork._exit.bare" "$TMP/short.fork._exit.hp" 1.5
    short_row "bash, 200 /bin/true" "ms" "$TMP/short.loop.bare" "$TMP/short.loop.hp" 1.3
    short_row "hotpath-run bash, 200 /bin/true" "ms" "$TMP/short.loop.bare" "$TMP/short.loop.run" 1.3
fi
