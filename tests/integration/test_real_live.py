"""Real servers under load with their live views scraped every 250 ms, the way a Prometheus or a
watching user would: every process (each nginx worker too, found through the registry) answers
while it serves, and the scraping changes nothing the server does (the same answers, every
request served, the figures in its report matching the load)."""
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request

from live import read_token
from test_real import NGINX_CONF, free_port, io_names, profiled_env, reports_in, stop_master, wait_port

SCRAPE_PATHS = ("/metrics", "/threads", "/profiler_status", "/io")


def registry_entries(runtime, want, timeout=10):
    """The live registry files (pid -> entry) once `want` processes have one."""
    d = os.path.join(runtime, "hotpath")
    deadline = time.monotonic() + timeout
    while True:
        entries = {}
        for name in os.listdir(d) if os.path.isdir(d) else []:
            try:
                with open(os.path.join(d, name)) as f:
                    entries[int(name.split(".")[0])] = json.load(f)
            except (OSError, ValueError):
                pass
        if len(entries) >= want or time.monotonic() > deadline:
            return entries
        time.sleep(0.05)


class Scraper(threading.Thread):
    """GETs every endpoint of every process every 250 ms until stopped; keeps what it saw."""

    def __init__(self, entries, runtime):
        super().__init__(daemon=True)
        self.entries = entries
        self.token = read_token(runtime)          # the user's, as Prometheus's credentials_file
        self.stopping = threading.Event()
        self.ok = {pid: 0 for pid in entries}
        self.failures = []
        self.rounds = 0

    def get(self, pid, path):
        url = f"http://127.0.0.1:{self.entries[pid]['port']}{path}"
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}"} if self.token else {})
        with urllib.request.urlopen(request, timeout=5) as r:
            body = r.read()
            if r.status != 200:
                raise AssertionError(f"{url}: {r.status}")
        if path == "/profiler_status":
            status = json.loads(body)
            assert status["pid"] == pid, (url, status)
        elif path == "/metrics":
            assert b"# TYPE " in body, (url, body[:200])
        else:
            json.loads(body)

    def run(self):
        while not self.stopping.is_set():
            self.rounds += 1
            for pid in self.entries:
                for path in SCRAPE_PATHS:
                    try:
                        self.get(pid, path)
                        self.ok[pid] += 1
                    except Exception as e:   # kept and asserted on by the test
                        self.failures.append((pid, path, repr(e)))
            self.stopping.wait(0.25)

    def stop(self):
        self.stopping.set()
        self.join(10)


def wrk_requests(output):
    m = re.search(r"(\d+) requests in", output)
    assert m, output
    assert "Non-2xx" not in output and "Socket errors" not in output, output
    return int(m.group(1))


def test_nginx_workers_live_under_load():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "www"))
        os.mkdir(os.path.join(d, "reports"))
        runtime = os.path.join(d, "run")
        os.mkdir(runtime, 0o700)
        with open(os.path.join(d, "www", "index.html"), "w") as f:
            f.write("hello from nginx\n")
        port = free_port()
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(d=d, port=port))
        env = profiled_env(os.path.join(d, "reports"), {"XDG_RUNTIME_DIR": runtime})
        master = subprocess.Popen(["nginx", "-c", os.path.join(d, "nginx.conf"), "-p", d],
                                  env=env, stderr=subprocess.PIPE)
        try:
            wait_port(port)
            entries = registry_entries(runtime, 3)
            assert master.pid in entries and len(entries) == 3, entries   # master and both workers
            assert len({e["port"] for e in entries.values()}) == 3, entries
            scraper = Scraper(entries, runtime)
            scraper.start()
            load = subprocess.run(["wrk", "-t2", "-c8", "-d3s", f"http://127.0.0.1:{port}/index.html"],
                                  capture_output=True, timeout=60, text=True)
            scraper.stop()
            assert load.returncode == 0, load.stderr
            served = wrk_requests(load.stdout)
            assert served > 100, load.stdout
            body = subprocess.run(["curl", "-s", f"http://127.0.0.1:{port}/index.html"],
                                  capture_output=True, timeout=10).stdout
            assert body == b"hello from nginx\n", body
            master.send_signal(signal.SIGTERM)
            assert master.wait(timeout=30) == 0
        finally:
            stop_master(master)
        # every process answered every endpoint all through the load (3 s: about 12 rounds)
        assert not scraper.failures, scraper.failures[:5]
        assert scraper.rounds >= 6 and all(n >= 6 * len(SCRAPE_PATHS) for n in scraper.ok.values()), \
            (scraper.rounds, scraper.ok)
        reports = reports_in(os.path.join(d, "reports"))
        assert set(reports) == set(entries), (list(reports), list(entries))
        # each request read the file once: wrk's count, plus the curl, plus what was in flight
        # when wrk stopped counting (at most one per connection)
        reads = sum(row["read"]["op_count"] for r in reports.values() for row in r["io"]["resources"]
                    if row["name"].endswith(os.path.join(d, "www", "index.html")))
        assert served + 1 <= reads <= served + 1 + 8, (reads, served)
        assert any("tcp listen 127.0.0.1:%d" % port in io_names(r) for r in reports.values())


def redis_session(port):
    cli = subprocess.run(["redis-cli", "-p", str(port)], input=b"SET k hello\nGET k\nINCR n\nINCR n\n",
                         capture_output=True, timeout=30)
    return cli.stdout


def test_redis_live_under_load():
    with tempfile.TemporaryDirectory() as d:
        runtime = os.path.join(d, "run")
        os.mkdir(runtime, 0o700)
        port = free_port()
        env = profiled_env(d, {"XDG_RUNTIME_DIR": runtime})
        server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_port(port)
            entries = registry_entries(runtime, 1)
            assert list(entries) == [server.pid], entries
            scraper = Scraper(entries, runtime)
            scraper.start()
            bench = subprocess.run(["redis-benchmark", "-p", str(port), "-q", "-n", "40000", "-c", "8",
                                    "-t", "set,get,incr"], capture_output=True, timeout=120, text=True)
            out = redis_session(port)
            scraper.stop()
            assert bench.returncode == 0, bench.stderr
            assert "INCR" in bench.stdout and "GET" in bench.stdout, bench.stdout
            assert out == b"OK\nhello\n1\n2\n", out
            # redis-benchmark's INCRs all landed: the counter it uses went up by exactly 40,000
            got = subprocess.run(["redis-cli", "-p", str(port), "GET", "counter:__rand_int__"],
                                 capture_output=True, timeout=30).stdout
            assert got == b"40000\n", got
            subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, timeout=30)
            assert server.wait(timeout=30) == 0
        finally:
            if server.poll() is None:
                server.kill()
        assert not scraper.failures, scraper.failures[:5]
        assert scraper.rounds >= 2 and scraper.ok[server.pid] >= 2 * len(SCRAPE_PATHS), (scraper.rounds, scraper.ok)
        report = reports_in(d)[server.pid]
        assert report["threads"]["header"]["thread_count"] >= 4
