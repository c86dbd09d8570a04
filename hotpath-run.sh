#!/bin/sh
# hotpath-run — run a program under the hotpath profiler (libhotpath.so first in LD_PRELOAD) and
# get its report when it exits. Installed as `hotpath-run`; see hotpath-run(1).
set -eu

VERSION=0.5.0
# The system's name: read, not asked of uname, where Linux has it (a process fewer before the program's)
{ read -r os < /proc/sys/kernel/ostype; } 2>/dev/null || os=$(uname -s)

usage() {
    cat <<'USAGE'
usage: hotpath-run [options] [--] program [args...]
       hotpath-run --pid PID [--duration S] [options]
                                         the threads view of a running process, from outside
       hotpath-run prometheus-targets    Prometheus file_sd JSON of every profiled process
                                         (--help: how Prometheus scrapes with the token)
       hotpath-run console [options]     the live console (hotpath-console --help)

Runs program with libhotpath.so preloaded; the report is written when it exits
(stderr unless --output says otherwise). Exits with the program's exit status.
On Linux it stays the program's parent until it ends, forwarding the signals sent
to it, and then waits for the processes the program left running.

On Linux a run gives one report: a table of every process image of the run (each
process, and each program it exec'd), then the full reports of the images that
matter: the one with the most CPU, and every one that lived at least 1 s and used
at least 10% of the run's CPU (--all: every image; --only: those matching). An image
that exec'd another program within 100 ms (a shell or env on the way) is a row of
the table only. With -f json or json-pretty the report is one JSON run document.

options:
      --pid PID         watch running process PID from outside instead (Linux): its threads'
                        CPU%, Max%, user/sys time, status and RSS every interval, without
                        touching it; the report at --duration, Ctrl-C or its end
      --duration S      end the watch after S seconds (default: until Ctrl-C or its end)
  -o, --output PATH     write the run's report to PATH; with %p (pid) or %n (process
                        image number) in it, one report file per process image instead
  -f, --format FORMAT   table (default), json, json-pretty or none
      --all             show every process image's full report (see below)
      --only PATTERN    show the full reports of the images whose command line matches
                        the shell glob PATTERN (a plain word: any command line holding it)
      --keep-run-dir    keep the per-process reports of the run (a line says where)
  -i, --interval MS     thread sampling interval in milliseconds (default 250)
  -l, --limit N         rows per text table (each table's default; 0 = all)
      --checkpoint N    rewrite the report file every N seconds (survives SIGKILL)
      --no-children     programs it starts run without the profiler
      --html PATH       also write an HTML report (charts over time, sortable tables) to PATH
                        (%p = pid, %n = process image number)
      --flamegraph PATH write an SVG flame graph of the CPU profile to PATH
                        (%p = pid, %n = process image number)
      --alloc-flamegraph PATH
                        the same for allocated bytes by call stack (sampled)
      --orphan-wait S   after the program ended, wait up to S seconds for the
                        processes it left running (default 10; Linux)
  -h, --help            this help
      --version         print the version

Every HOTPATH_* variable in the environment is passed through as well.
USAGE
}

need_value() {
    [ "$#" -ge 2 ] || { echo "hotpath-run: $1 needs a value" >&2; exit 2; }
}

# A flag's value is checked as its setting's row checks it (core/config.c: the same ranges and
# words), and a bad one is refused by the flag's own name, with status 2: the library's warning
# would name the variable, and the program would run with the default.
bad_value() {
    echo "hotpath-run: $1: \"$2\" is not $3" >&2
    exit 2
}
# flag value lo hi what-a-good-value-is
check_whole() {
    case "$2" in ''|*[!0-9]*) bad_value "$1" "$2" "$5" ;; esac
    digits=${2#"${2%%[!0]*}"}
    digits=${digits:-0}
    if [ "${#digits}" -gt 9 ] || [ "$digits" -lt "$3" ] || [ "$digits" -gt "$4" ]; then bad_value "$1" "$2" "$5"; fi
}
set_format() {
    case "$2" in
        table|text|json|json-pretty|none) export HOTPATH_OUTPUT_FORMAT="$2" ;;
        *) bad_value "$1" "$2" "one of table, json, json-pretty, none" ;;
    esac
}
set_interval() {
    check_whole "$1" "$2" 1 3600000 "a whole number of milliseconds from 1 to 3600000"
    export HOTPATH_THREADS_INTERVAL_MS="$2"
}
set_limit() {
    check_whole "$1" "$2" 0 1000000 "a whole number of rows (0 = all)"
    export HOTPATH_LIMIT="$2"
}
set_checkpoint() {
    check_whole "$1" "$2" 0 86400 "a whole number of seconds from 0 (off) to 86400"
    export HOTPATH_CHECKPOINT_S="$2"
    checkpoint=$2
}

orphan_wait=10 checkpoint=0
output='' only='' run_options='' watch_pid='' duration=''
set_orphan_wait() {
    case "$1" in
        ''|*[!0-9]*) echo "hotpath-run: --orphan-wait needs a whole number of seconds" >&2; exit 2 ;;
    esac
    orphan_wait=$1
}

# The per-process registry of live metrics servers (docs/REFERENCE.md "Live views").
registry_dir() {
    if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ "${XDG_RUNTIME_DIR#/}" != "$XDG_RUNTIME_DIR" ]; then
        echo "$XDG_RUNTIME_DIR/hotpath"
    else
        echo "/tmp/hotpath-$(id -u)"
    fi
}

# Prometheus file_sd JSON: one target group per live registered process.
prometheus_targets() {
    dir=$(registry_dir)
    sep=""
    printf '['
    # only a private directory of our own, and files of our own in it
    if [ ! -d "$dir" ] || [ -L "$dir" ] || [ ! -O "$dir" ] || [ "$(stat -c %a -- "$dir")" != 700 ]; then
        printf ']\n'
        return
    fi
    for f in "$dir"/*.json; do
        [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ] || continue
        pid=$(basename -- "$f" .json)
        case "$pid" in ''|*[!0-9]*) continue ;; esac
        kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ] || continue
        line=$(cat -- "$f")
        port=$(printf '%s' "$line" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')
        [ -n "$port" ] || continue
        cmd=$(printf '%s' "$line" | sed -n 's/.*"command":\("\([^"\\]\|\\.\)*"\).*/\1/p')
        token=$(printf '%s' "$line" | sed -n 's/.*"token_required":\(true\|false\).*/\1/p')
        printf '%s\n  {"targets": ["127.0.0.1:%s"], "labels": {"pid": "%s", "command": %s, "token_required": "%s"}}' \
            "$sep" "$port" "$pid" "${cmd:-\"?\"}" "${token:-false}"
        sep=","
    done
    printf '\n]\n'
}

prometheus_targets_usage() {
    dir=$(registry_dir)
    cat <<USAGE
usage: hotpath-run prometheus-targets > targets.json

Prints Prometheus file_sd JSON: one target group per profiled process of this user
registered in $dir/ (labels pid, command, token_required).
Every process asks for the user's token, the file $dir/token
(HOTPATH_METRICS_AUTH_TOKEN=none: no token); Prometheus sends it with:

scrape_configs:
  - job_name: hotpath
    authorization:
      credentials_file: $dir/token
    file_sd_configs:
      - files: ['/etc/prometheus/hotpath-targets.json']

Prometheus must run as this user to read that file, or be given a copy (0600).
USAGE
}

# Set variable $1 to path $2 made absolute (a program that changes directory still writes there).
export_path() {
    case "$2" in
        /*) eval "$1=\$2" ;;
        *)  eval "$1=\$PWD/\$2" ;;
    esac
    export "$1"
}

# The folder of file $1, as an absolute path (parameter expansion, not dirname: a run should not
# cost processes before the program's first).
dir_of() {
    case "$1" in
        */*) d=${1%/*} ;;
        *) d=. ;;
    esac
    CDPATH= cd -- "${d:-/}" && pwd
}

case "${1:-}" in
    prometheus-targets)
        case "${2:-}" in -h|--help) prometheus_targets_usage; exit 0 ;; esac
        prometheus_targets; exit 0 ;;
    console)
        shift
        here=$(dir_of "$0")
        for c in "$here/hotpath-console" "$here/build/hotpath-console"; do
            [ -x "$c" ] && exec "$c" "$@"
        done
        exec hotpath-console "$@" ;;
esac

while [ "$#" -gt 0 ]; do
    case "$1" in
        -o|--output)   need_value "$@"; output=$2; shift 2 ;;
        -f|--format)   need_value "$@"; set_format "$1" "$2"; shift 2 ;;
        -i|--interval) need_value "$@"; set_interval "$1" "$2"; shift 2 ;;
        -l|--limit)    need_value "$@"; set_limit "$1" "$2"; shift 2 ;;
        --output=*)    output=${1#*=}; shift ;;
        --format=*)    set_format --format "${1#*=}"; shift ;;
        --interval=*)  set_interval --interval "${1#*=}"; shift ;;
        --limit=*)     set_limit --limit "${1#*=}"; shift ;;
        --checkpoint)  need_value "$@"; set_checkpoint "$1" "$2"; shift 2 ;;
        --checkpoint=*) set_checkpoint --checkpoint "${1#*=}"; shift ;;
        --no-children) export HOTPATH_NO_CHILDREN=true; shift ;;
        --html)        need_value "$@"; export_path HOTPATH_HTML_PATH "$2"; shift 2 ;;
        --html=*)      export_path HOTPATH_HTML_PATH "${1#*=}"; shift ;;
        --flamegraph)  need_value "$@"; export_path HOTPATH_CPU_FLAMEGRAPH "$2"; shift 2 ;;
        --flamegraph=*) export_path HOTPATH_CPU_FLAMEGRAPH "${1#*=}"; shift ;;
        --alloc-flamegraph)  need_value "$@"; export_path HOTPATH_ALLOC_FLAMEGRAPH "$2"; shift 2 ;;
        --alloc-flamegraph=*) export_path HOTPATH_ALLOC_FLAMEGRAPH "${1#*=}"; shift ;;
        --all)         run_options="$run_options --all"; shift ;;
        --only)        need_value "$@"; only=$2; shift 2 ;;
        --only=*)      only=${1#*=}; shift ;;
        --keep-run-dir) run_options="$run_options --keep-run-dir"; shift ;;
        --pid)         need_value "$@"; watch_pid=$2; shift 2 ;;
        --pid=*)       watch_pid=${1#*=}; shift ;;
        --duration)    need_value "$@"; duration=$2; shift 2 ;;
        --duration=*)  duration=${1#*=}; shift ;;
        --orphan-wait) need_value "$@"; set_orphan_wait "$2"; shift 2 ;;
        --orphan-wait=*) set_orphan_wait "${1#*=}"; shift ;;
        -h|--help)     usage; exit 0 ;;
        --version)     echo "hotpath-run $VERSION"; exit 0 ;;
        --)            shift; break ;;
        -*)            echo "hotpath-run: unknown option $1 (see hotpath-run --help)" >&2; exit 2 ;;
        *)             break ;;
    esac
done

if [ -n "$watch_pid" ]; then
    [ "$#" -eq 0 ] || { echo "hotpath-run: --pid watches a running process: no program to run" >&2; exit 2; }
elif [ -n "$duration" ]; then
    echo "hotpath-run: --duration is for --pid" >&2; exit 2
fi
[ "$#" -gt 0 ] || [ -n "$watch_pid" ] || { usage >&2; exit 2; }

# A checkpoint rewrites the report's file; stderr cannot be rewritten.
if [ "$checkpoint" != 0 ] && [ -z "$output" ] && [ -z "${HOTPATH_OUTPUT_PATH:-}" ]; then
    echo "hotpath-run: --checkpoint needs -o PATH: it rewrites the report file, and stderr cannot be rewritten" >&2
    exit 2
fi

# -o PATH with %p or %n: one file per process image, which the library writes itself; without
# them the launcher writes the run's one report there (on macOS, where there is no launcher,
# the library does, as it always did).
if [ -n "$output" ]; then
    case "$output" in
        *%p*|*%n*) export_path HOTPATH_OUTPUT_PATH "$output"; output= ;;
        *) if [ "$os" = Darwin ] || [ -n "$watch_pid" ]; then export_path HOTPATH_OUTPUT_PATH "$output"; output=
           else unset HOTPATH_OUTPUT_PATH; case "$output" in /*) ;; *) output=$PWD/$output ;; esac; fi ;;
    esac
fi

# File $1 beside this script, in its build folder $2 (the source tree), else in the install
# prefix's folder $3, as an absolute path; or a message and status 127.
find_beside() {
    for candidate in "$here/$1" "$here/$2/$1" "$here/../$3/$1"; do
        if [ -f "$candidate" ]; then
            echo "$(dir_of "$candidate")/$1"
            return
        fi
    done
    echo "hotpath-run: $1 not found beside $here or in $here/../$3 (run make)" >&2
    exit 127
}

# The library; on macOS libhotpath.dylib (`make macos` puts one per architecture under
# build/macos/). On Linux also the launcher, the program's parent until it ends.
here=$(dir_of "$0")
if [ "$os" = Darwin ]; then
    lib=$(find_beside libhotpath.dylib "build/macos/$(uname -m)" lib)
else
    lib=$(find_beside libhotpath.so build lib)
    launcher=$(find_beside hotpath-launch build libexec/hotpath)
fi

# --pid: the launcher watches the process from outside, with the library in its own second turn
# (no CPU profile or allocation sampling of the watcher itself; its live server from the start).
if [ -n "$watch_pid" ]; then
    [ "$os" != Darwin ] || { echo "hotpath-run: --pid is Linux only" >&2; exit 2; }
    export HOTPATH_CPU_HZ=0 HOTPATH_ALLOC_SAMPLE_BYTES=0 HOTPATH_NO_CHILDREN=true
    export HOTPATH_METRICS_START_MS="${HOTPATH_METRICS_START_MS:-0}"
    exec "$launcher" --preload "$lib" --watch "$watch_pid" ${duration:+--duration "$duration"}
fi

# Say so when the preload cannot take effect (the program still runs, unprofiled): here on macOS,
# by the launcher on Linux (launcher/unprofiled.c).
[ "$os" != Darwin ] || program=$(command -v -- "$1" 2>/dev/null || true)
if [ "$os" = Darwin ] && [ -n "$program" ] && [ -f "$program" ]; then
    # the interpreter of a script is the program dyld starts
    interp=$(head -c 256 -- "$program" 2>/dev/null | sed -n '1s/^#![[:space:]]*\([^[:space:]]*\).*/\1/p' || true)
    for p in "$program" $interp; do
        case "$p" in
            /usr/bin/*|/bin/*|/sbin/*|/usr/sbin/*|/usr/libexec/*|/System/*)
                echo "hotpath-run: $p is protected by System Integrity Protection, which strips DYLD_* variables (DYLD_INSERT_LIBRARIES) from programs under /usr/bin, /bin, /sbin, /usr/libexec and /System, so it runs unprofiled (a copy elsewhere, or a build of your own, can be profiled)" >&2
                break ;;
        esac
        if [ -u "$p" ] || [ -g "$p" ]; then
            echo "hotpath-run: $p is set-user-ID or set-group-ID: dyld ignores DYLD_INSERT_LIBRARIES for it, so it runs unprofiled" >&2
            break
        elif command -v codesign >/dev/null && codesign -d --verbose=1 -- "$p" 2>&1 | grep -q 'flags=.*runtime' &&
             ! codesign -d --entitlements - -- "$p" 2>/dev/null | grep -q allow-dyld-environment-variables; then
            echo "hotpath-run: $p is signed with the hardened runtime, without the allow-dyld-environment-variables entitlement: dyld ignores DYLD_INSERT_LIBRARIES for it, so it runs unprofiled" >&2
            break
        fi
    done
fi

if [ "$os" = Darwin ]; then
    # dyld applies the library's __interpose section to every image: the order does not matter
    export DYLD_INSERT_LIBRARIES="$lib${DYLD_INSERT_LIBRARIES:+:$DYLD_INSERT_LIBRARIES}"
    exec "$@"
fi
# The launcher puts the library first in the program's LD_PRELOAD (so the allocator found after
# it is the one the program would have used), not in its own: it is not profiled.
# It gathers the reports the processes leave in its run directory (HOTPATH_RUN_DIR) into one.
# shellcheck disable=SC2086  # $run_options: words without spaces
exec "$launcher" --preload "$lib" --orphan-wait "$orphan_wait" --format "${HOTPATH_OUTPUT_FORMAT:-table}" \
    ${output:+--output "$output"} ${only:+--only "$only"} $run_options -- "$@"
