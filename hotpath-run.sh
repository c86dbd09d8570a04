#!/bin/sh
# hotpath-run — run a program under the hotpath profiler (libhotpath.so first in LD_PRELOAD) and
# get its report when it exits. Installed as `hotpath-run`; see hotpath-run(1).
set -eu

VERSION=0.1.0

usage() {
    cat <<'USAGE'
usage: hotpath-run [options] [--] program [args...]
       hotpath-run prometheus-targets    Prometheus file_sd JSON of every profiled process
       hotpath-run console [options]     the live console (hotpath-console --help)

Runs program with libhotpath.so preloaded; the report is written when it exits
(stderr unless --output says otherwise). Exits with the program's exit status.

options:
  -o, --output PATH     write the report to PATH (%p = pid, %n = process image number)
  -f, --format FORMAT   table (default), json, json-pretty or none
  -i, --interval MS     thread sampling interval in milliseconds (default 250)
  -l, --limit N         rows per text table (each table's default; 0 = all)
      --checkpoint N    rewrite the report file every N seconds (survives SIGKILL)
      --no-children     programs it starts run without the profiler
  -h, --help            this help
      --version         print the version

Every HOTPATH_* variable in the environment is passed through as well.
USAGE
}

need_value() {
    [ "$#" -ge 2 ] || { echo "hotpath-run: $1 needs a value" >&2; exit 2; }
}

# The per-process registry of live metrics servers (README "Live views").
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

case "${1:-}" in
    prometheus-targets) prometheus_targets; exit 0 ;;
    console)
        shift
        here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
        for c in "$here/hotpath-console" "$here/build/hotpath-console"; do
            [ -x "$c" ] && exec "$c" "$@"
        done
        exec hotpath-console "$@" ;;
esac

while [ "$#" -gt 0 ]; do
    case "$1" in
        -o|--output)   need_value "$@"; export HOTPATH_OUTPUT_PATH="$2"; shift 2 ;;
        -f|--format)   need_value "$@"; export HOTPATH_OUTPUT_FORMAT="$2"; shift 2 ;;
        -i|--interval) need_value "$@"; export HOTPATH_THREADS_INTERVAL_MS="$2"; shift 2 ;;
        -l|--limit)    need_value "$@"; export HOTPATH_LIMIT="$2"; shift 2 ;;
        --output=*)    export HOTPATH_OUTPUT_PATH="${1#*=}"; shift ;;
        --format=*)    export HOTPATH_OUTPUT_FORMAT="${1#*=}"; shift ;;
        --interval=*)  export HOTPATH_THREADS_INTERVAL_MS="${1#*=}"; shift ;;
        --limit=*)     export HOTPATH_LIMIT="${1#*=}"; shift ;;
        --checkpoint)  need_value "$@"; export HOTPATH_CHECKPOINT_S="$2"; shift 2 ;;
        --checkpoint=*) export HOTPATH_CHECKPOINT_S="${1#*=}"; shift ;;
        --no-children) export HOTPATH_NO_CHILDREN=true; shift ;;
        -h|--help)     usage; exit 0 ;;
        --version)     echo "hotpath-run $VERSION"; exit 0 ;;
        --)            shift; break ;;
        -*)            echo "hotpath-run: unknown option $1 (see hotpath-run --help)" >&2; exit 2 ;;
        *)             break ;;
    esac
done

[ "$#" -gt 0 ] || { usage >&2; exit 2; }

# The library: beside this script (source tree or build/), else in the install prefix.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
lib=""
for candidate in "$here/libhotpath.so" "$here/build/libhotpath.so" "$here/../lib/libhotpath.so"; do
    if [ -f "$candidate" ]; then lib=$candidate; break; fi
done
[ -n "$lib" ] || { echo "hotpath-run: libhotpath.so not found beside $here or in $here/../lib (run make)" >&2; exit 127; }
lib=$(CDPATH= cd -- "$(dirname -- "$lib")" && pwd)/$(basename -- "$lib")

# Say so when the preload cannot take effect (the program still runs, unprofiled).
program=$(command -v -- "$1" 2>/dev/null || true)
if [ -n "$program" ] && [ -f "$program" ]; then
    if [ -u "$program" ] || [ -g "$program" ]; then
        echo "hotpath-run: $program is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it, so it runs unprofiled" >&2
    elif LC_ALL=C ldd "$program" 2>&1 | grep -q "not a dynamic executable"; then
        echo "hotpath-run: $program is statically linked: nothing can be preloaded into it, so it runs unprofiled" >&2
    fi
fi

# First in LD_PRELOAD, so the allocator found after it is the one the program would have used.
export LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
exec "$@"
