"""Real programs from Debian, started the way their users start them, under the preload: their
output and exit status unchanged, one valid report per process, and views that show what they did.
(The overhead of these loads is measured apart, not here.)"""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from harness import LIB, assert_header_sums, clean_env, validate


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def reports_in(d):
    found = {}
    for path in glob.glob(os.path.join(d, "*.json")):
        with open(path) as f:
            report = validate(json.load(f))
        found[report["pid"]] = report
    return found


def profiled_env(d, extra=None):
    return clean_env({"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "%p-%n.json"),
                      **(extra or {})})


def thread_names(report):
    return [r["name"] for r in report["threads"]["rows"]]


def io_names(report):
    return [r["name"] for r in report["io"]["resources"]]


def fd_count(pid):
    """The program's own descriptors: the profiler keeps its few moved high (docs/DESIGN.md rule 12).
    The fewest over half a second: a client that just left may still hold one for a moment."""
    counts = []
    for _ in range(10):
        counts.append(len([fd for fd in os.listdir(f"/proc/{pid}/fd") if int(fd) < 200]))
        time.sleep(0.05)
    return min(counts)


def run_redis(d, preload):
    port = free_port()
    env = profiled_env(d) if preload else clean_env(preload=False)
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_port(port)
        bench = subprocess.run(["redis-benchmark", "-p", str(port), "-q", "-n", "3000", "-t", "set,get"],
                               capture_output=True, timeout=60)
        assert bench.returncode == 0, bench.stderr
        cli = subprocess.run(["redis-cli", "-p", str(port)], input=b"SET k hello\nGET k\nINCR n\nINCR n\n",
                             capture_output=True, timeout=30)
        fds = fd_count(server.pid)
        subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, timeout=30)
        assert server.wait(timeout=30) == 0
        return cli.stdout, fds, server.pid
    finally:
        if server.poll() is None:
            server.kill()


def test_redis():
    with tempfile.TemporaryDirectory() as d:
        plain, plain_fds, _ = run_redis(d, preload=False)
        out, fds, pid = run_redis(d, preload=True)
        assert out == plain == b"OK\nhello\n1\n2\n", out
        assert fds == plain_fds, (fds, plain_fds)               # no descriptor leaked or taken low
        report = reports_in(d)[pid]
        names = thread_names(report)
        assert "main" in names and any(n.startswith("bio_") for n in names), names
        assert any(n.startswith("tcp listen 127.0.0.1:") for n in io_names(report)), io_names(report)
        assert any(n.startswith("tcp 127.0.0.1:* -> 127.0.0.1:") for n in io_names(report))


def stop_master(master):
    """An nginx master still running after a failure: SIGTERM, so it takes its workers with it
    (SIGKILL left them orphaned, holding the test runner's pipes)."""
    if master.poll() is None:
        master.send_signal(signal.SIGTERM)
        try:
            master.wait(timeout=10)
        except subprocess.TimeoutExpired:
            master.kill()


NGINX_CONF = """
user root;
worker_processes 2;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  server {{ listen 127.0.0.1:{port}; root {d}/www; }}
}}
"""


def test_nginx_master_and_workers_each_report():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "www"))
        os.mkdir(os.path.join(d, "reports"))
        with open(os.path.join(d, "www", "index.html"), "w") as f:
            f.write("hello from nginx\n")
        port = free_port()
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(d=d, port=port))
        master = subprocess.Popen(["nginx", "-c", os.path.join(d, "nginx.conf"), "-p", d],
                                  env=profiled_env(os.path.join(d, "reports")), stderr=subprocess.PIPE)
        try:
            wait_port(port)
            for _ in range(50):
                body = subprocess.run(["curl", "-s", f"http://127.0.0.1:{port}/index.html"],
                                      capture_output=True, timeout=10).stdout
                assert body == b"hello from nginx\n", body
            master.send_signal(signal.SIGTERM)           # how its users stop it
            assert master.wait(timeout=30) == 0
        finally:
            stop_master(master)
        reports = reports_in(os.path.join(d, "reports"))
        assert master.pid in reports and len(reports) == 3, list(reports)
        workers = [r for pid, r in reports.items() if pid != master.pid]
        served = sum(row["read"]["op_count"] for w in workers for row in w["io"]["resources"]
                     if row["name"].endswith(os.path.join(d, "www", "index.html")))
        assert served == 50, served
        assert any("tcp listen 127.0.0.1:%d" % port in io_names(r) for r in reports.values())


def test_memcached_threads_and_contended_locks():
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        server = subprocess.Popen(["memcached", "-U", "0", "-l", "127.0.0.1", "-p", str(port), "-t", "4", "-u", "root"],
                                  env=profiled_env(d), stderr=subprocess.PIPE)
        try:
            wait_port(port)
            load = subprocess.run(["memcslap", f"--servers=127.0.0.1:{port}", "--concurrency=8",
                                   "--execute-number=1000"], capture_output=True, timeout=120)
            assert load.returncode == 0, load.stderr
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        finally:
            if server.poll() is None:
                server.kill()
        report = reports_in(d)[server.pid]
        assert thread_names(report).count("mc-worker") == 4, thread_names(report)
        assert sum(r["contended_count"] for r in report["mutexes"]["rows"]) > 0


WRITE_SQL = "create table t(a integer, b text);\n" + "".join(
    f"insert into t values({i}, 'row {i}');\n" for i in range(200)) + "begin;\n" + "".join(
    f"insert into t values({i}, 'row {i}');\n" for i in range(200, 20000)) + "commit;\nselect count(*), sum(a) from t;\n"
READ_SQL = "select count(*) from t where b like 'row 1%';\nselect max(a), min(b) from t;\n" * 50


def test_sqlite3_write_and_read_scripts():
    with tempfile.TemporaryDirectory() as d:
        outputs = []
        for preload in (False, True):
            db = os.path.join(d, f"db{int(preload)}.sqlite")
            env = profiled_env(d) if preload else clean_env(preload=False)
            for script in (WRITE_SQL, READ_SQL):
                p = subprocess.run(["sqlite3", db], input=script.encode(), env=env, capture_output=True, timeout=120)
                assert p.returncode == 0, p.stderr
                outputs.append(p.stdout)
        assert outputs[0] == outputs[2] and outputs[1] == outputs[3]
        reports = list(reports_in(d).values())
        assert len(reports) == 2
        db = os.path.join(d, "db1.sqlite")
        write = next(r for r in reports if any(x["name"] == db + "-journal" for x in r["io"]["resources"]))
        rows = {x["name"]: x for x in write["io"]["resources"]}
        assert rows[db]["write"]["bytes"] >= 4096 and rows[db + "-journal"]["write"]["bytes"] > 0


CHURN_SQL = """create table t(a integer primary key, b text, c blob);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
  insert into t select i, printf('row-%d-%s', i, hex(zeroblob(i % 150))), zeroblob(i % 2500) from n;
create index tb on t(b);
update t set b = b || 'x' where a % 3 = 0;
delete from t where a % 5 = 0;
vacuum;
select count(*), sum(length(b)), sum(length(c)) from t;
select count(*) from t where b like 'row-1%';
"""

PY_CHURN = r"""
import hashlib, json, sqlite3, zlib
d = {str(i): [i, 'x' * (i % 50)] for i in range(20000)}
s = json.dumps(d)
assert json.loads(s) == d
z = zlib.compress(s.encode())
assert zlib.decompress(z).decode() == s
db = sqlite3.connect(':memory:')
db.execute('create table t(a, b)')
db.executemany('insert into t values(?, ?)', ((i, 'y' * (i % 400)) for i in range(20000)))
print(hashlib.sha256(s.encode()).hexdigest(), len(z), db.execute('select count(*), sum(length(b)) from t').fetchone())
"""


def test_glibc_programs_with_most_blocks_sampled():
    # sampling every 64 bytes samples most blocks: sqlite3 and Python, both on glibc's allocator,
    # must print exactly what they print bare
    with tempfile.TemporaryDirectory() as d:
        runs = {}
        for preload in (False, True):
            env = profiled_env(d, {"HOTPATH_ALLOC_SAMPLE_BYTES": "64"}) if preload else clean_env(preload=False)
            db = os.path.join(d, f"churn{int(preload)}.sqlite")
            sq = subprocess.run(["sqlite3", db], input=CHURN_SQL.encode(), env=env, capture_output=True, timeout=120)
            py = subprocess.run([sys.executable, "-c", PY_CHURN], env=env, capture_output=True, timeout=120)
            assert sq.returncode == 0 and py.returncode == 0, (sq.stderr, py.stderr)
            runs[preload] = (sq.stdout, py.stdout)
        assert runs[True] == runs[False]
        reports = list(reports_in(d).values())
        assert len(reports) == 2
        for r in reports:
            assert r["functions_alloc"]["samples_count"] > 10000, r["command"]
            assert_header_sums(r)


PY_LIBC_DIRECT = r"""
import ctypes
libc = ctypes.CDLL("libc.so.6")
libc.strdup.restype = ctypes.c_void_p
libc.realloc.restype = ctypes.c_void_p
libc.realloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.malloc_usable_size.argtypes = [ctypes.c_void_p]
total = 0
for i in range(20000):
    p = libc.strdup(b"hello world" * 10)
    q = libc.realloc(p, 300 + i % 500)
    total += libc.malloc_usable_size(q) >= 300 + i % 500
    libc.free(q)
print(total)
"""


def test_libc_own_functions_through_a_libc_handle():
    # ctypes.CDLL("libc.so.6").free is glibc's own free, reached without our hooks, on blocks our
    # malloc handed out (and sampled: every one of them here). It must work as without us.
    with tempfile.TemporaryDirectory() as d:
        env = profiled_env(d, {"HOTPATH_ALLOC_SAMPLE_BYTES": "1"})
        p = subprocess.run([sys.executable, "-c", PY_LIBC_DIRECT], env=env, capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        assert p.stdout.strip() == b"20000"
        (report,) = reports_in(d).values()
        assert report["functions_alloc"]["samples_count"] >= 20000


PY_WORKLOAD = r"""
import os, sys, tempfile, threading
lock = threading.Lock()
total = [0]
def work(i):
    path = os.path.join(sys.argv[1], f"w{i}.txt")
    for j in range(200):
        data = [str(k) * 10 for k in range(100)]
        with lock:
            total[0] += len(data)
        with open(path, "a") as f:
            f.write(",".join(data[:5]) + "\n")
threads = [threading.Thread(target=work, args=(i,), name=f"py-{i}") for i in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print(total[0], sum(os.path.getsize(os.path.join(sys.argv[1], f"w{i}.txt")) for i in range(4)))
"""


def test_python_threaded_workload():
    with tempfile.TemporaryDirectory() as d:
        outs = []
        for preload in (False, True):
            work = os.path.join(d, f"work{int(preload)}")
            os.mkdir(work)
            env = profiled_env(d) if preload else clean_env(preload=False)
            p = subprocess.run([sys.executable, "-c", PY_WORKLOAD, work], env=env, capture_output=True, timeout=120)
            assert p.returncode == 0, p.stderr
            outs.append(p.stdout)
        assert outs[0] == outs[1]
        (report,) = reports_in(d).values()
        workers = [r for r in report["threads"]["rows"] if r["name"] != "main"]
        assert len(workers) == 4 and all(r["alloc_bytes"] > 0 for r in workers), workers
        files = [x for x in report["io"]["resources"] if x["name"].startswith(os.path.join(d, "work1"))]
        assert len(files) == 4 and all(x["write"]["bytes"] > 0 for x in files), files


def test_all_tools_present():
    for tool in ("redis-server", "redis-benchmark", "nginx", "memcached", "memcslap", "sqlite3", "curl"):
        assert shutil.which(tool), f"{tool} missing: scripts/install-deps.sh installs it"
    assert os.path.exists(LIB)
