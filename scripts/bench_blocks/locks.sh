# shellcheck shell=bash
# bench_blocks/locks.sh — `make bench`, locks view block (issue 4): build/bench/lock_bench
# (scripts/lock_bench.c). Sourced by scripts/bench.sh, which sets LIB, ROUNDS, TMP, NOTES and
# median().
#
# An uncontended pthread_mutex_lock/unlock pair bare, under the preload with the default hold
# sampling, and with every hold timed (HOTPATH_MUTEXES_TIME_SAMPLING_RATE=1), in a program with an
# idle second thread, bare too (scripts/bench_shape.h: glibc's lock is a plain store while a
# process has one thread, and a one-thread loop of 20M pairs would end on either side of the
# profiler's thread's start; the shapes block times each shape whole); a contended
# two-thread workload (half of each round inside the lock) bare and preloaded, as a throughput
# ratio (bare ns / ns), with how contended it was from the profiler's own report; the same
# workload inside one process (workload-ab: hooked and libc's own lock functions in alternating
# block pairs, so the VM's drift between runs cancels; bare, it shows the method's bias); and the
# two-thread lock/increment/unlock loop, whose threads mostly relock what they just unlocked; and
# two threads taking one rwlock for reading.
# The workload's runs fall into a fast and a slow speed, about 20% apart, whatever the preload
# (how the two threads happen to fall into step): a median of a few runs jumps between the two,
# so it gets more, shorter runs, and its ratio is of the mean times (the throughput over all of
# them), with a bootstrap interval over the interleaved pairs.
LOCK_BIN=build/bench/lock_bench
LOCK_PAIR_N=20000000
LOCK_CONT_N=4000000
LOCK_READ_N=4000000
LOCK_WORK_N=1000000
LOCK_WORK_ROUNDS=$(( ROUNDS * 3 ))
if [ -x "$LOCK_BIN" ]; then
    echo
    echo "locks: median of $ROUNDS rounds, interleaved; pair $LOCK_PAIR_N ops, relock loop $LOCK_CONT_N ops, rwlock reads $LOCK_READ_N ops; workload $LOCK_WORK_N ops, $LOCK_WORK_ROUNDS rounds"
    lock_one() {    # pattern config iterations [shape]
        local line status
        case $2 in
            bare)    line=$("$LOCK_BIN" "$1" "$3" ${4:+"$4"} 2>&1) ;;
            default) line=$(LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$LOCK_BIN" "$1" "$3" ${4:+"$4"} 2>&1) ;;
            every)   line=$(LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none HOTPATH_MUTEXES_TIME_SAMPLING_RATE=1 "$LOCK_BIN" "$1" "$3" ${4:+"$4"} 2>&1) ;;
        esac
        status=$?
        if [ "$status" -ne 0 ] || ! echo "$line" | grep -qE "^$1 $3 ops [0-9.]+ ns/op\$"; then
            echo "note: lock_bench $1 under $2: status $status: $line" >> "$NOTES"
            return 1
        fi
        echo "$line" | awk '{ print $4 }' >> "$TMP/lock.$1.$2"
    }
    lock_ab() {    # config: the in-process workload's ratio
        local line
        case $1 in
            bare)    line=$("$LOCK_BIN" workload-ab "$LOCK_WORK_N" 2>&1) ;;
            default) line=$(LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none "$LOCK_BIN" workload-ab "$LOCK_WORK_N" 2>&1) ;;
        esac
        if ! echo "$line" | grep -qE "^workload-ab [0-9]+ ops [0-9.]+ ns/op direct [0-9.]+ ns/op ratio [0-9.]+\$"; then
            echo "note: lock_bench workload-ab under $1: $line" >> "$NOTES"
            return
        fi
        echo "$line" | awk '{ print $NF }' >> "$TMP/lock.ab.$1"
    }
    for r in $(seq 1 "$ROUNDS"); do
        echo "locks round $r/$ROUNDS ..." >&2
        for c in bare default every; do lock_one pair "$c" "$LOCK_PAIR_N" threaded; done
        for c in bare default; do lock_ab "$c"; done
        for c in bare default; do lock_one contended "$c" "$LOCK_CONT_N"; done
        for c in bare default; do lock_one rwread "$c" "$LOCK_READ_N"; done
    done
    for r in $(seq 1 "$LOCK_WORK_ROUNDS"); do
        echo "locks workload round $r/$LOCK_WORK_ROUNDS ..." >&2
        # line i of both files is round i: a pair only when both runs gave a figure
        lock_one workload bare "$LOCK_WORK_N" || continue
        lock_one workload default "$LOCK_WORK_N" || sed -i '$d' "$TMP/lock.workload.bare"
    done
    # how contended each two-thread pattern is, by the profiler's own count
    contention() {    # pattern iterations -> "waits W of L acquisitions (P%), owner changes O"
        LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH="$TMP/lock.json" \
            "$LOCK_BIN" "$1" "$2" > /dev/null 2>&1
        python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["mutexes"]["rows"][0]
print("%d of %d acquisitions waited (%.1f%%), %d owner changes" % (r["contended_count"],
      r["locks_count"], 100.0 * r["contended_count"] / max(r["locks_count"], 1), r["owner_changes_count"]))' \
            "$TMP/lock.json" 2>/dev/null || echo "not known"
    }
    # The workload's throughput ratio: mean bare time / mean preloaded time over the paired rounds,
    # and a 90% interval from 2,000 resamples of the pairs (fixed seed): "R LO HI PAIRS", or "-".
    throughput_ratio() {    # bare-file preloaded-file
        if [ ! -s "$1" ] || [ ! -s "$2" ]; then echo -; return; fi
        local pairs=$TMP/lock.workload.pairs
        paste "$1" "$2" > "$pairs"
        awk 'BEGIN { srand(4) }
            { b[NR] = $1; h[NR] = $2 }
            END {
                for (k = 0; k < 2000; k++) {
                    x = 0; y = 0
                    for (i = 0; i < NR; i++) { j = 1 + int(rand() * NR); x += b[j]; y += h[j] }
                    print x / y
                }
            }' "$pairs" | sort -g | awk -v all="$(awk '{ b += $1; h += $2 } END { print b / h, NR }' "$pairs")" '
            { r[NR] = $1 }
            END { split(all, a, " "); printf "%.3f %.3f %.3f %d\n", a[1], r[int(NR * 0.05) + 1], r[int(NR * 0.95)], a[2] }'
    }
    spread() {    # file -> "min-max"
        sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }'
    }
    wr=$(throughput_ratio "$TMP/lock.workload.bare" "$TMP/lock.workload.default")
    mean() {    # file -> mean, or "-" when there is no figure
        awk '{ s += $1 } END { if (NR) printf "%.1f", s / NR; else print "-" }' "$1" 2>/dev/null || echo -
    }
    wb=$(mean "$TMP/lock.workload.bare"); wd=$(mean "$TMP/lock.workload.default")
    lb=$(median "$TMP/lock.pair.bare"); ld=$(median "$TMP/lock.pair.default"); le=$(median "$TMP/lock.pair.every")
    cb=$(median "$TMP/lock.contended.bare"); cd_=$(median "$TMP/lock.contended.default")
    rb=$(median "$TMP/lock.rwread.bare"); rd=$(median "$TMP/lock.rwread.default")
    ab=$(median "$TMP/lock.ab.bare"); ad=$(median "$TMP/lock.ab.default")
    awk -v ab="$ab" -v ad="$ad" -v b="$lb" -v d="$ld" -v e="$le" -v cb="$cb" -v cd="$cd_" -v rb="$rb" -v rd="$rd" -v wb="$wb" -v wd="$wd" \
        -v wr="$wr" -v ws="$(spread "$TMP/lock.workload.bare") ns/op bare, $(spread "$TMP/lock.workload.default") preloaded" \
        -v wc="$(contention workload "$LOCK_WORK_N")" -v cc="$(contention contended "$LOCK_CONT_N")" 'BEGIN {
        printf "| lock pattern | bare ns/op | hotpath ns/op | added ns | ratio |\n"
        printf "| ------------ | ---------: | ------------: | -------: | ----: |\n"
        if (b != "-" && d != "-") printf "| pair, default sampling (a second thread) | %.1f | %.1f | %+.1f | %.2fx |\n", b, d, d - b, d / b
        if (b != "-" && e != "-") printf "| pair, every hold timed (a second thread) | %.1f | %.1f | %+.1f | %.2fx |\n", b, e, e - b, e / b
        if (wb != "-" && wd != "-") printf "| contended workload, 2 threads (mean) | %.1f | %.1f | %+.1f | %.2fx |\n", wb, wd, wd - wb, wd / wb
        if (cb != "-" && cd != "-") printf "| relock loop, 2 threads | %.1f | %.1f | %+.1f | %.2fx |\n", cb, cd, cd - cb, cd / cb
        if (rb != "-" && rd != "-") printf "| rwlock reads, 2 threads | %.1f | %.1f | %+.1f | %.2fx |\n", rb, rd, rd - rb, rd / rb
        print ""
        if (b == "-" || d == "-") print "target: lock/unlock pair, default settings: not measured"
        else printf "target: lock/unlock pair, default settings %+.1f ns (target <= 15 ns): %s\n", d - b, (d - b <= 15) ? "met" : "missed"
        if (b != "-" && e != "-") printf "info: lock/unlock pair, every hold timed %+.1f ns\n", e - b
        if (wr == "-") print "target: contended 2-thread workload throughput ratio: not measured"
        else {
            split(wr, w, " ")
            printf "target: contended 2-thread workload throughput ratio %.2f (target >= 0.90): %s; 90%% interval %.2f-%.2f over %d interleaved pairs (runs %s); %s\n",
                   w[1], (w[1] >= 0.90) ? "met" : "missed", w[2], w[3], w[4], ws, wc
        }
        if (ab != "-" && ad != "-")
            printf "info: the same workload inside one process, hooked against the lock functions of libc itself: ratio %.2f (the method shows %.2f bare)\n", ad, ab
        if (cb != "-" && cd != "-")
            printf "info: 2-thread lock/increment/unlock loop ratio %.2f; %s: nearly every acquisition is uncontended, so this is the uncontended hook cost over a %.0f ns round\n", cb / cd, cc, cb
    }'
fi
