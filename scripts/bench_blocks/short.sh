# shellcheck shell=bash
# bench_blocks/short.sh — `make bench`, short-lived processes block (issue 28): what a process
# that lives a few milliseconds pays, whole process against whole process, each profiled process
# writing its JSON report (a %p file in a scratch directory, as a user's script would). Sourced by
# scripts/bench.sh, which sets LIB, ROUNDS, TMP, NOTES and median().
#
# The reports go to a directory on a memory file system, where hotpath-run puts its run directory
# ($XDG_RUNTIME_DIR, else /dev/shm; $TMP when neither is writable): creating a file on a disk file
# system can cost more than a short process itself (on a VM whose ext4 /tmp has seen many files
# come and go, 170 us a file), and that is the file system's price for the file the user asked
# for, not the profiler's. What creating a file costs in $TMP is measured in the same run and
# printed below the table.
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
    SHORT_DIR=$TMP
    for d in "${XDG_RUNTIME_DIR:-}" /dev/shm; do
        if [ -n "$d" ] && [ -w "$d" ] && [ -x "$d" ]; then SHORT_DIR=$(mktemp -d "$d/hotpath-bench-short.XXXXXX") && break; fi
    done
    creat_us() {    # dir -> microseconds to create, write 2 KB to and close a new file, 400 in a row
        python3 - "$1" <<'PY'
import os, sys, time
d = os.path.join(sys.argv[1], "creat")
os.makedirs(d, exist_ok=True)
t = time.perf_counter()
for i in range(400):
    fd = os.open(os.path.join(d, "%d.json" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, b"x" * 2100)
    os.close(fd)
print("%.1f" % ((time.perf_counter() - t) / 400 * 1e6))
for i in range(400):
    os.unlink(os.path.join(d, "%d.json" % i))
os.rmdir(d)
PY
    }
    echo
    echo "short-lived processes: median of $ROUNDS rounds, interleaved; $FORK_N fork children per round, 200 /bin/true per bash loop"
    ms_of() {    # command... -> wall milliseconds
        local s e
        s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N)
        echo "$(( (e - s) / 1000 ))" | awk '{ printf "%.1f\n", $1 / 1000 }'
    }
    for r in $(seq 1 "$ROUNDS"); do
        echo "short round $r/$ROUNDS ..." >&2
        out=$SHORT_DIR/out; rm -rf "$out"; mkdir -p "$out"
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
        creat_us "$TMP" >> "$TMP/short.creat.tmp"
        creat_us "$SHORT_DIR" >> "$TMP/short.creat.mem"
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
    echo
    echo "reports written to $(df --output=fstype "$SHORT_DIR" | tail -n 1 | tr -d ' ') ($SHORT_DIR); creating, writing 2 KB to and closing a file: $(median "$TMP/short.creat.mem") us there, $(median "$TMP/short.creat.tmp") us in $TMP ($(df --output=fstype "$TMP" | tail -n 1 | tr -d ' ')), medians of $ROUNDS rounds of 400 files"
    [ "$SHORT_DIR" != "$TMP" ] && rm -rf "$SHORT_DIR"
fi
