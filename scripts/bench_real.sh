#!/bin/bash
# bench_real.sh — `make bench-real`: what profiling costs real programs. Each load runs bare and
# preloaded with every view on, in alternation (A B A B ..., PAIRS pairs), and the medians give
# throughput ratios (redis-benchmark, wrk against nginx) and wall-time ratios (sqlite3 scripts,
# also under heaptrack). Prints a Markdown table and writes it into its own section of
# BENCHMARKS.md (scripts/bench_md.sh; BENCH_MD overrides the file, none = none), headed with the
# date and the machine. Loopback only.
set -u
cd "$(dirname "$0")/.." || exit 1

LIB=$PWD/build/libhotpath.so
PAIRS=${BENCH_PAIRS:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hotpath-bench-real.XXXXXX") || exit 1
trap 'pkill -f "redis-server 127.0.0.1:6391" 2>/dev/null; [ -f "$TMP/nginx.pid" ] && kill "$(cat "$TMP/nginx.pid")" 2>/dev/null; rm -rf "$TMP"' EXIT
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
for p in $(seq 1 "$PAIRS"); do
    echo "pair $p/$PAIRS ..." >&2
    for c in $configs; do redis_round "$c"; done
    for c in $configs; do nginx_round "$c"; done
    for c in $sqlite_configs; do sqlite_round "$c"; done
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
row "nginx + wrk, 2 workers" "req/s" nginx throughput 0.95
row "sqlite3 write script" "ms" sqlite_write time 1.10
row "sqlite3 read script" "ms" sqlite_read time 1.10
if [ -s "$TMP/sqlite_write.heaptrack" ]; then
    for s in write read; do
        awk -v n="sqlite3 $s script under heaptrack" -v b="$(median "$TMP/sqlite_$s.bare")" -v h="$(median "$TMP/sqlite_$s.heaptrack")" \
            'BEGIN { printf "| %s | %.0f ms | %.0f ms | %.3f | (for comparison) |\n", n, b, h, h / b }'
    done
fi
} | tee "$TMP/real.out"
bench_md_section real 'Real programs (`make bench-real`)' "$TMP/real.out" \
    "$PAIRS pairs, bare and preloaded alternating, every view on, medians"
exit 0
