# shellcheck shell=bash
# bench_blocks/shapes.sh — `make bench`, shapes block (issue 28): what a program pays per lock
# pair and per 64-byte read/write, whole process against whole process, in each shape of program
# (scripts/bench_shape.h): one thread before the profiler's thread starts (alone), one thread
# after it (late: glibc's multi-threaded paths from then on, which the bare program never takes),
# and a program with a second thread of its own (threaded: glibc's multi-threaded paths bare too).
# Sourced by scripts/bench.sh, which sets LIB, TMP and NOTES and gives median_spread().
#
# The lock pair under the preload looked bimodal across processes (17-19 ns in some, 24-28 in
# others): a process whose loop ran before the profiler's thread started had glibc's
# single-threaded lock (a plain store), one whose loop ran after it had the atomic one. So each
# shape is timed apart, SHAPES_N processes of each (bare and preloaded interleaved), and each row
# gives the spread of its processes (p10-p90) beside the median: "one mode" when the preloaded
# processes spread, relative to their median, no wider than the bare ones plus 10 points (a
# second mode of the profiler's would widen them; the VM's own moments of half speed, which bare
# shows too, do not count against it). The in-process figures of the locks and io blocks leave
# out what the process as a whole pays; these do not.
SHAPES_N=${BENCH_SHAPES_PROCESSES:-15}
SHAPE_LOCK_N=4000000    # alone: the loop and its warm-up end well inside the first 250 ms
SHAPE_IO_N=150000
if [ -x build/bench/lock_bench ] && [ -x build/bench/io_bench ]; then
    echo
    echo "whole process against whole process: $SHAPES_N processes per figure, bare and preloaded interleaved; lock pair $SHAPE_LOCK_N ops, read/write $SHAPE_IO_N calls of 64 bytes (/dev/zero, /dev/null); each process writes no report (HOTPATH_OUTPUT_FORMAT=none)"
    shape_one() {    # loop shape config
        local out status
        case $1 in
            pair)  set -- "$1" "$2" "$3" build/bench/lock_bench pair "$SHAPE_LOCK_N" "$2" ;;
            read)  set -- "$1" "$2" "$3" build/bench/io_bench read-loop "$SHAPE_IO_N" "$2" ;;
            write) set -- "$1" "$2" "$3" build/bench/io_bench write-loop "$SHAPE_IO_N" "$2" ;;
        esac
        local loop=$1 shape=$2 config=$3
        shift 3
        case $config in
            bare) out=$("$@" 2>&1) ;;
            hp)   out=$(LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$@" 2>&1) ;;
        esac
        status=$?
        if [ "$status" -ne 0 ] || ! echo "$out" | grep -qE "^[a-z-]+ [0-9]+ ops [0-9.]+ ns/op\$"; then
            echo "note: shapes $loop $shape under $config: status $status: $out" >> "$NOTES"
            return
        fi
        echo "$out" | awk '{ print $4 }' >> "$TMP/shape.$loop.$shape.$config"
    }
    for i in $(seq 1 "$SHAPES_N"); do
        echo "shapes process $i/$SHAPES_N ..." >&2
        for loop in pair read write; do
            for shape in alone late threaded; do
                for config in bare hp; do shape_one "$loop" "$shape" "$config"; done
            done
        done
    done
    echo
    echo "| loop | shape | bare ns (p10-p90) | hotpath ns (p10-p90) | added ns | ratio | one mode |"
    echo "| ---- | ----- | ----------------: | -------------------: | -------: | ----: | -------- |"
    for loop in pair read write; do
        for shape in alone late threaded; do
            b=$(median_spread "$TMP/shape.$loop.$shape.bare"); h=$(median_spread "$TMP/shape.$loop.$shape.hp")
            [ "$b" = - ] || [ "$h" = - ] && continue
            echo "$loop $shape $b $h" >> "$TMP/shape.rows"
        done
    done
    awk '{
        name = $1 == "pair" ? "lock pair" : $1 == "read" ? "read 64 B" : "write 64 B"
        bw = ($5 - $4) / $3; hw = ($8 - $7) / $6
        one = hw <= bw + 0.10 ? "yes" : "no"
        printf "| %s | %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %+.1f | %.2fx | %s (spread %.0f%% against %.0f%%) |\n",
               name, $2, $3, $4, $5, $6, $7, $8, $6 - $3, $6 / $3, one, 100 * hw, 100 * bw
    }' "$TMP/shape.rows" 2>/dev/null
    echo
    awk '$1 == "pair" {
            hw = ($8 - $7) / $6; bw = ($5 - $4) / $3
            if (hw > bw + 0.10) bad = bad " " $2
            n++
        }
        $1 != "pair" && $2 == "threaded" {
            printf "target: 64-byte %s, whole process, program with threads: %.2fx bare (target <= 1.10): %s\n", $1, $6 / $3, $6 / $3 <= 1.10 ? "met" : "missed"
        }
        $1 != "pair" && $2 == "alone" {
            printf "info: 64-byte %s, whole process, program of one thread: %.2fx bare\n", $1, $6 / $3
        }
        END {
            if (!n) print "target: lock pair in one mode: not measured"
            else printf "target: lock pair in one mode in each shape: %s\n", bad == "" ? "met" : "missed (" substr(bad, 2) ")"
        }' "$TMP/shape.rows" 2>/dev/null
    echo "info: late is a program of one thread past its first interval: the profiler's thread has started, so glibc takes its multi-threaded paths, which the bare program of one thread never does; its added ns is that price, paid once the process outlives 250 ms"
else
    echo "note: build/bench/lock_bench or io_bench missing; run make bench" >> "$NOTES"
fi
