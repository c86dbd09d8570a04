#!/bin/bash
# bench_real.sh — `make bench-real`: what profiling costs real programs. Each load runs bare and
# preloaded with every view on, in alternation (A B A B ..., PAIRS pairs), and the medians give
# throughput ratios (redis-benchmark, wrk against nginx, pgbench against PostgreSQL) and wall-time
# ratios (sqlite3 scripts, also under heaptrack). Prints a Markdown table and writes it into its own section of
# BENCHMARKS.md (scripts/bench_md.sh; BENCH_MD overrides the file, none = none), headed with the
# date and the machine. Loopback only.
set -u
cd "$(dirname "$0")/.." || exit 1

LIB=$PWD/build/libhotpath.so
PAIRS=${BENCH_PAIRS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-bench-real.XXXXXX") || exit 1
PG_BIN=/usr/lib/postgresql/15/bin
PG_PORT=5491
pg_stop() { [ -d "$TMP/pg/data" ] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$TMP/pg/data" stop -m fast >/dev/null 2>&1; }
trap 'pkill -f "redis-server 127.0.0.1:6391" 2>/dev/null; [ -f "$TMP/nginx.pid" ] && kill "$(cat "$TMP/nginx.pid")" 2>/dev/null; pg_stop; rm -rf "$TMP" "${PG_REPORTS:-}"' EXIT
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(HOTPATH_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
preload_env() { [ "$1" = hotpath ] && echo "LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=none" || echo "HOTPATH_UNUSED=1"; }

wait_port() { for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

redis_round() {    # config
    env $(preload_env "$1") redis-server --port 6391 --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
    wait_port 6391 || return
    redis-benchmark -p 6391 -q -n 100000 -t set,get 2>/dev/null | tr '\r' '\n' |
        awk -v c="$1" -v d="$TMP" '/^SET: [0-9]/ { print $2 >> d "/redis_set." c } /^GET: [0-9]/ { print $2 >> d "/redis_get." c }'
    redis-cli -p 6391 shutdown nosave >/dev/null 2>&1
    wait
}

nginx_round() {    # config
    mkdir -p "$TMP/www"; echo "hello from nginx" > "$TMP/www/index.html"
    cat > "$TMP/nginx.conf" <<CONF
user root; worker_processes 2; daemon off; pid $TMP/nginx.pid; error_log $TMP/error.log;
events { worker_connections 512; }
http { access_log off; server { listen 127.0.0.1:8391; root $TMP/www; } }
CONF
    env $(preload_env "$1") nginx -c "$TMP/nginx.conf" -p "$TMP" >/dev/null 2>&1 &
    wait_port 8391 || return
    wrk -t2 -c50 -d4s http://127.0.0.1:8391/index.html 2>/dev/null | awk -v c="$1" -v d="$TMP" '/^Requests\/sec/ { print $2 >> d "/nginx." c }'
    kill "$(cat "$TMP/nginx.pid")"; wait
}

# PostgreSQL makes a backend process per connection, a fork of the postmaster: pgbench -C (a new
# connection for every transaction, select-only) is a prefork server's short-lived processes, and
# pgbench without -C the same server on long connections. The preloaded server's processes each
# write their JSON report (a %p file on a memory file system), as the short-lived-process targets
# ask; the report count is checked against the backends the load made. As root, the server runs
# as the postgres user (initdb refuses root); skipped without PostgreSQL 15's server.
pg_setup() {
    [ -x "$PG_BIN/postgres" ] && command -v pgbench >/dev/null && [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1 || return 1
    mkdir -p "$TMP/pg" && chown postgres "$TMP" "$TMP/pg" || return 1
    runuser -u postgres -- "$PG_BIN/initdb" -D "$TMP/pg/data" -A trust -U postgres >/dev/null 2>&1 || return 1
    PG_REPORTS=$(mktemp -d "${XDG_RUNTIME_DIR:-/dev/shm}/hotpath-bench-pg.XXXXXX") && chown postgres "$PG_REPORTS" || return 1
    pg_start bare || return 1
    pgbench -q -i -s 1 -h 127.0.0.1 -p "$PG_PORT" -U postgres postgres >/dev/null 2>&1; local rc=$?
    pg_stop; wait
    return $rc
}

pg_start() {    # config
    local e="HOTPATH_UNUSED=1"
    [ "$1" = hotpath ] && e="LD_PRELOAD=$LIB HOTPATH_OUTPUT_FORMAT=json HOTPATH_OUTPUT_PATH=$PG_REPORTS/%p.json"
    runuser -u postgres -- env $e "$PG_BIN/postgres" -D "$TMP/pg/data" -k "$TMP/pg" -p "$PG_PORT" \
        -c listen_addresses=127.0.0.1 -c fsync=off >"$TMP/pg/log" 2>&1 &
    for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p "$PG_PORT" && return 0; sleep 0.05; done
    return 1
}

pg_reports_count() {    # backends -> "files valid backends", a line for this round's reports
    python3 - "$PG_REPORTS" "$1" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
valid = 0
for f in files:
    try:
        valid += json.load(open(f)).get("type") == "hotpath_report"
    except ValueError:
        pass
print(len(files), valid, sys.argv[2])
PY
}

pg_round() {    # config
    [ "$1" = hotpath ] && rm -f "$PG_REPORTS"/*.json
    : > "$TMP/pg_tx"
    pg_start "$1" || return
    local a
    for a in short long; do
        pgbench $([ $a = short ] && echo -C) -S -c 4 -T 5 -h 127.0.0.1 -p "$PG_PORT" -U postgres postgres 2>/dev/null |
            awk -v f="$TMP/pg_$a.$1" -v n="$TMP/pg_tx" '/^tps = / { print $3 >> f }
                /^number of transactions actually processed: / { if (f ~ /short/) print $6 > n }'
    done
    pg_stop; wait
    [ "$1" = hotpath ] && pg_reports_count "$(cat "$TMP/pg_tx")" >> "$TMP/pg_reports"
}

sqlite_round() {    # config
    local db=$TMP/db.sqlite start end
    rm -f "$db" "$db-journal"
    for script in write read; do
        start=$(date +%s%N)
        case $1 in
            heaptrack) heaptrack -o "$TMP/ht" sqlite3 "$db" < "$TMP/$script.sql" >/dev/null 2>&1; rm -f "$TMP"/ht* ;;
            *) env $(preload_env "$1") sqlite3 "$db" < "$TMP/$script.sql" >/dev/null ;;
        esac
        end=$(date +%s%N)
        echo "$(( (end - start) / 1000000 ))" >> "$TMP/sqlite_$script.$1"
    done
}

{
    echo "create table t(a integer, b text);"
    for i in $(seq 1 300); do echo "insert into t values($i, 'row $i');"; done
    echo "begin;"; for i in $(seq 301 60000); do echo "insert into t values($i, 'row $i');"; done; echo "commit;"
    echo "create index ib on t(b);"
} > "$TMP/write.sql"
for i in $(seq 1 200); do echo "select count(*), sum(a) from t where b like 'row 1%';"; done > "$TMP/read.sql"

echo "hotpath bench-real, $(date '+%Y-%m-%d %H:%M %Z'), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $PAIRS pairs, alternating"
configs="bare hotpath"
command -v heaptrack >/dev/null && sqlite_configs="bare hotpath heaptrack" || sqlite_configs="bare hotpath"
pg_setup && pg_configs=$configs || { pg_configs=""; echo "pgbench: skipped (needs root, the postgres user and PostgreSQL 15's server in $PG_BIN)" >&2; }
for p in $(seq 1 "$PAIRS"); do
    echo "pair $p/$PAIRS ..." >&2
    for c in $configs; do redis_round "$c"; done
    for c in $configs; do nginx_round "$c"; done
    for c in $sqlite_configs; do sqlite_round "$c"; done
    for c in $pg_configs; do pg_round "$c"; done
done

# shellcheck source=scripts/bench_md.sh
. scripts/bench_md.sh

{
echo
echo "| load | bare | hotpath | ratio | target |"
echo "| ---- | ---: | ------: | ----: | ------ |"
row() {    # name unit file-stem kind(throughput|time) target
    local b h
    b=$(median "$TMP/$3.bare"); h=$(median "$TMP/$3.hotpath")
    awk -v n="$1" -v u="$2" -v b="$b" -v h="$h" -v k="$4" -v t="$5" 'BEGIN {
        r = (k == "throughput") ? h / b : h / b
        ok = (k == "throughput") ? (r >= t) : (r <= t)
        printf "| %s | %.0f %s | %.0f %s | %.3f | %s %.2f: %s |\n", n, b, u, h, u, r, (k == "throughput") ? ">=" : "<=", t, ok ? "met" : "missed" }'
}
row "redis-benchmark SET" "req/s" redis_set throughput 0.95
row "redis-benchmark GET" "req/s" redis_get throughput 0.95
row "nginx + wrk, 2 workers" "req/s" nginx throughput 0.97
if [ -s "$TMP/pg_short.bare" ]; then
    row "pgbench -C -S, a connection per transaction" "tps" pg_short throughput 0.90
    row "pgbench -S, 4 long connections" "tps" pg_long throughput 0.95
fi
row "sqlite3 write script" "ms" sqlite_write time 1.10
row "sqlite3 read script" "ms" sqlite_read time 1.10
if [ -s "$TMP/sqlite_write.heaptrack" ]; then
    for s in write read; do
        awk -v n="sqlite3 $s script under heaptrack" -v b="$(median "$TMP/sqlite_$s.bare")" -v h="$(median "$TMP/sqlite_$s.heaptrack")" \
            'BEGIN { printf "| %s | %.0f ms | %.0f ms | %.3f | (for comparison) |\n", n, b, h, h / b }'
    done
fi
[ -s "$TMP/pg_short.bare" ] && { echo; echo "pgbench -C -S tps, each run: bare $(sort -g "$TMP/pg_short.bare" | xargs printf "%.0f "), hotpath $(sort -g "$TMP/pg_short.hotpath" | xargs printf "%.0f ")"; }
[ -s "$TMP/pg_reports" ] && { awk '{ f += $1; v += $2; b += $3 } END {
    printf "pgbench: the preloaded servers left %d reports, %d of them valid JSON reports, for %d backends made by -C (and the server'"'"'s own processes)\n", f, v, b }' "$TMP/pg_reports"; }
} | tee "$TMP/real.out"
bench_md_section real 'Real programs (`make bench-real`)' "$TMP/real.out" \
    "$PAIRS pairs, bare and preloaded alternating, every view on, medians"
exit 0
