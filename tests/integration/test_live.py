"""The live views: the metrics server's endpoints through curl, the auth token, busy ports, the
per-process registry, what a hostile peer can send, and the Prometheus exposition."""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

import jsonschema

from harness import SCHEMA, VALIDATOR, clean_env, run, target

CURL_BIN = shutil.which("curl") or "/usr/bin/curl"
from live import (Live, curl, free_port, get_json, other_user, raw_status, read_token, token_file, use_runtime,
                  wait_entry)


def section_validator(key):
    schema = dict(SCHEMA["$defs"][key])
    schema["$defs"] = SCHEMA["$defs"]
    return jsonschema.Draft202012Validator(schema)


def wait_for(fn, timeout=5.0):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(0.05)


def test_every_endpoint_serves_its_view_in_the_exit_report_shape():
    with Live() as p:
        assert p.entry and p.entry["pid"] == p.pid and p.entry["token_required"] is True   # the user's token
        time.sleep(0.6)                                   # a couple of sampler passes
        status, st = get_json(p.url("/profiler_status"))
        assert status == 200
        assert st["pid"] == p.pid and st["command"].endswith("live") and st["version"]
        assert st["interval_ms"] == 250 and st["uptime_ns"] > 0 and st["port"] == p.port
        for key in ("threads", "mutexes", "rw_locks", "io"):
            status, view = get_json(p.url("/" + key))
            assert status == 200, key
            section_validator(key).validate(view)
        status, threads = get_json(p.url("/threads"))
        names = sorted(r["name"] for r in threads["rows"])
        assert names == ["main", "worker"], names        # the server's own thread is not there
        status, mutexes = get_json(p.url("/mutexes"))
        assert any(r["name"] == "lock" and r["locks_count"] > 0 for r in mutexes["rows"])
        status, report = get_json(p.url("/report"))
        VALIDATOR.validate(report)
        assert report["pid"] == p.pid and set(report) >= {"threads", "mutexes", "rw_locks", "io"}
        for key in ("functions_cpu", "functions_alloc"):      # served once the view exists
            status, head, body = curl(p.url("/" + key))
            if key in st["views"]:
                assert status == 200
                section_validator(key).validate(json.loads(body))
            else:
                assert status == 404 and body.count(b"\n") == 1
                assert json.loads(body)["error"] == f"view not available: {key}"
        status, head, body = curl(p.url("/nothing"))
        assert status == 404 and json.loads(body)["error"]
        status, answer = raw_status(p.port, b"HEAD /threads HTTP/1.1\r\n\r\n")   # headers only
        head, _, body = answer.partition(b"\r\n\r\n")
        assert status == 200 and body == b"" and int(head.split(b"Content-Length: ")[1].split(b"\r")[0]) > 100
        status, head, body = curl(p.url("/metrics"))
        assert status == 200 and "text/plain; version=0.0.4" in head


def test_hotpath_report_selects_the_views_served():
    with Live(env={"HOTPATH_REPORT": "threads"}) as p:
        assert curl(p.url("/threads"))[0] == 200
        for key in ("mutexes", "rw_locks", "io", "functions_cpu", "functions_alloc"):
            status, _, body = curl(p.url("/" + key))
            assert status == 404 and json.loads(body) == {"error": f"view not available: {key}", "status": 404}
        status, report = get_json(p.url("/report"))
        assert "threads" in report and "mutexes" not in report


def test_metrics_series_are_each_their_own():
    # a mutex made again at its address is two locks of one name: Prometheus refuses a scrape
    # that has two series of one name and labels, so the second carries an ordinal
    with Live(("live", "30000", "remade")) as p:
        time.sleep(0.6)
        status, _, body = curl(p.url("/metrics"))
        assert status == 200
        series = [line.rsplit(" ", 1)[0] for line in body.decode().splitlines() if line and not line.startswith("#")]
        assert len(series) == len(set(series)), sorted(s for s in set(series) if series.count(s) > 1)[:5]
        assert 'hotpath_mutex_acquisitions_total{mutex="lock"}' in series, [s for s in series if "mutex_acq" in s]
        assert 'hotpath_mutex_acquisitions_total{mutex="lock #2"}' in series, [s for s in series if "mutex_acq" in s]


def test_metrics_are_valid_prometheus_text():
    with Live() as p:
        time.sleep(0.6)
        status, _, body = curl(p.url("/metrics"))
        assert status == 200
        check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
        assert check.returncode == 0, check.stdout + check.stderr
        text = body.decode()
        for family in ("hotpath_uptime_seconds", "hotpath_rss_bytes", "hotpath_threads",
                       "hotpath_thread_cpu_seconds_total", "hotpath_thread_cpu_percent",
                       "hotpath_thread_alloc_bytes_total", "hotpath_thread_dealloc_bytes_total",
                       "hotpath_alloc_bytes_total", "hotpath_dealloc_bytes_total",
                       "hotpath_mutex_acquisitions_total", "hotpath_mutex_wait_seconds",
                       "hotpath_mutex_hold_seconds", "hotpath_io_ops_total", "hotpath_io_bytes_total",
                       "hotpath_io_op_seconds"):
            assert f"# TYPE {family} " in text, family
        assert f'hotpath_thread_cpu_seconds_total{{tid="' in text and 'name="worker",mode="user"' in text
        assert 'hotpath_threads 2\n' in text
        assert 'hotpath_io_bytes_total{name="/dev/null",kind="char",op="write"}' in text
        assert 'hotpath_mutex_hold_seconds_bucket{mutex="lock",le="+Inf"}' in text


def test_auth_token_is_required_and_compared():
    with Live(env={"HOTPATH_METRICS_AUTH_TOKEN": "s3cret"}) as p:
        assert p.entry["token_required"] is True and "token" not in p.entry
        assert not os.path.exists(token_file(p.runtime))     # an explicit token makes no file
        status, head, body = curl(p.url("/threads"), auth=False)
        assert status == 401 and json.loads(body)["error"] == "token required"
        assert curl(p.url("/threads"), "-H", "Authorization: wrong")[0] == 401
        assert curl(p.url("/threads"), "-H", "Authorization: s3cre")[0] == 401
        assert curl(p.url("/threads"), "-H", "Authorization: s3cret")[0] == 200
        assert curl(p.url("/metrics"), "-H", "Authorization: Bearer s3cret")[0] == 200


def test_the_users_token_is_made_once_in_the_private_registry_directory():
    """By default (auto) every process of a user asks for one token, the registry directory's
    `token` file (0600, the directory 0700), made by the first and read by the others; the
    registry entries say a token is needed but do not hold it."""
    with Live() as a, Live(runtime=a.runtime) as b:
        token = read_token(a.runtime)
        assert token and len(token) == 64 and int(token, 16) >= 0, token
        assert a.entry["token_required"] is True and "token" not in a.entry
        assert stat.S_IMODE(os.stat(a.registry).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(token_file(a.runtime)).st_mode) == 0o600
        for path in (f"{a.pid}.json", f"{b.pid}.json"):
            assert stat.S_IMODE(os.stat(os.path.join(a.registry, path)).st_mode) == 0o600
            assert token not in open(os.path.join(a.registry, path)).read()
        for p in (a, b):
            assert curl(p.url("/threads"), auth=False)[0] == 401
            status, head, body = curl(p.url("/report"), auth=False)
            assert status == 401 and json.loads(body)["error"] == "token required"
            assert 'WWW-Authenticate: Basic realm="hotpath"' in head
            assert curl(p.url("/threads"), "-H", f"Authorization: Bearer {token}")[0] == 200
            assert curl(p.url("/threads"), "-H", f"Authorization: {token}")[0] == 200     # as before
            # URL credentials: Basic, the token as the password of any user
            port = p.port
            assert curl(f"http://anyone:{token}@127.0.0.1:{port}/threads")[0] == 200
            assert curl(f"http://127.0.0.1:{port}/threads", "-u", f":{token}")[0] == 200
            # a wrong token, in each form
            wrong = token[:-1] + ("0" if token[-1] != "0" else "1")
            for args, url in ((("-H", f"Authorization: Bearer {wrong}"), p.url("/threads")),
                              (("-H", f"Authorization: {wrong}"), p.url("/threads")),
                              (("-H", f"Authorization: Bearer {token[:-1]}"), p.url("/threads")),
                              ((), f"http://anyone:{wrong}@127.0.0.1:{port}/threads"),
                              ((), f"http://{token}@127.0.0.1:{port}/threads")):   # a user name, no password
                status, head, body = curl(url, *args)
                assert status == 401 and json.loads(body)["error"] == "wrong token", (args, url)


def test_processes_that_start_together_share_one_token():
    """The token file is made with O_EXCL: of processes that start their servers at the same
    moment, one makes it and the others read it."""
    runtime = use_runtime(tempfile.mkdtemp(prefix="hotpath-rt-"))
    procs = []
    try:
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": runtime,
                         "HOTPATH_METRICS_START_MS": "0"})
        procs = [subprocess.Popen([target("live"), "30000"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(6)]
        entries = [wait_entry(runtime, p.pid) for p in procs]
        assert all(entries), entries
        token = read_token(runtime)
        assert token and len(token) == 64
        for e in entries:
            url = f"http://127.0.0.1:{e['port']}/profiler_status"
            assert curl(url, "-H", f"Authorization: Bearer {token}")[0] == 200
    finally:
        for p in procs:
            p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()
        shutil.rmtree(runtime, ignore_errors=True)


def as_other(uid, gid, cmd):
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *cmd],
                          capture_output=True, timeout=30, env=clean_env(preload=False))


def test_another_local_user_gets_401_and_cannot_read_the_token():
    """Any local user could read a profiled process's command line and file paths from /report:
    now the server asks for the user's token, which only that user can read."""
    assert os.getuid() == 0, "the tests run as root, to be a second user"
    uid, gid = other_user()
    # the registry in a directory the other user may pass through, as /run/user/UID and /tmp are
    parent = tempfile.mkdtemp(prefix="hotpath-rt-")
    os.chmod(parent, 0o755)
    with Live(runtime=parent) as p:
        token = read_token(parent)
        assert token
        url = p.url("/report")
        for cmd in ([CURL_BIN, "-s", "-o", "/dev/null", "-w", "%{http_code}", url],
                    [CURL_BIN, "-s", "-o", "/dev/null", "-w", "%{http_code}", f"http://u:guess@127.0.0.1:{p.port}/report"]):
            r = as_other(uid, gid, cmd)
            assert r.stdout == b"401", (cmd, r.stdout, r.stderr)
        r = as_other(uid, gid, ["cat", token_file(parent)])
        assert r.returncode != 0 and token.encode() not in r.stdout, r
        r = as_other(uid, gid, ["ls", p.registry])
        assert r.returncode != 0 and b"token" not in r.stdout, r
        # with the token (which this user has) it answers the other user too: the token is the key
        r = as_other(uid, gid, [CURL_BIN, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                                f"Authorization: Bearer {token}", url])
        assert r.stdout == b"200", r
    shutil.rmtree(parent, ignore_errors=True)


def test_no_token_with_none():
    """HOTPATH_METRICS_AUTH_TOKEN=none: no token, as on a trusted host; no token file is made."""
    with Live(env={"HOTPATH_METRICS_AUTH_TOKEN": "none"}) as p:
        assert p.entry["token_required"] is False
        assert curl(p.url("/threads"), auth=False)[0] == 200
        assert not os.path.exists(token_file(p.runtime))


def test_a_token_file_not_the_users_own_keeps_the_server_off():
    """A token file another user could read (or a link to one) is no secret: no server, one line."""
    for how in ("mode", "symlink"):
        runtime = tempfile.mkdtemp(prefix="hotpath-rt-")
        try:
            os.mkdir(os.path.join(runtime, "hotpath"), 0o700)
            if how == "mode":
                with open(token_file(runtime), "w") as f:
                    f.write("a" * 64)
                os.chmod(token_file(runtime), 0o644)
            else:
                with open(os.path.join(runtime, "elsewhere"), "w") as f:
                    f.write("a" * 64)
                os.chmod(os.path.join(runtime, "elsewhere"), 0o600)
                os.symlink(os.path.join(runtime, "elsewhere"), token_file(runtime))
            with Live(runtime=runtime, served=False) as p:
                assert p.entry is None
                err = p.stop()
            lines = [l for l in err.decode().splitlines() if l.startswith("hotpath:")]
            assert len(lines) == 1 and "metrics server is off" in lines[0], (how, err)
        finally:
            shutil.rmtree(runtime, ignore_errors=True)


def test_bad_token_refused_at_start_with_one_line_and_no_server():
    with Live(env={"HOTPATH_METRICS_AUTH_TOKEN": "has space"}, served=False) as p:
        assert p.entry is None                            # no server, nothing registered
        err = p.stop()
    lines = [l for l in err.decode().splitlines() if l.startswith("hotpath:")]
    assert len(lines) == 1 and "HOTPATH_METRICS_AUTH_TOKEN" in lines[0] and "has space" not in lines[0]


SOCKETS_AT_50_MS = """
import os, sys, time
time.sleep(0.05)
fds = []
for f in os.listdir("/proc/self/fd"):
    try:
        fds.append(os.readlink(f"/proc/self/fd/{f}"))
    except OSError:                # listdir's own
        pass
entry = os.path.join(os.environ["XDG_RUNTIME_DIR"], "hotpath", f"{os.getpid()}.json")
print(sum(f.startswith("socket:") for f in fds), os.path.exists(entry))
"""


def test_a_short_lived_process_opens_no_port_and_writes_no_registry_entry():
    """Every `sleep` in a `bash -c` listened on a port of its own: the server now starts once a
    process has lived HOTPATH_METRICS_START_MS (1 s), and a 50 ms child makes nothing, not even
    the token; with 0 it starts at the sampler's first pass as before (a millisecond in here)."""
    for start_ms, expect in ((None, "0 False"), ("0", "1 True")):
        runtime = tempfile.mkdtemp(prefix="hotpath-rt-")
        try:
            env = {"XDG_RUNTIME_DIR": runtime, "HOTPATH_THREADS_INTERVAL_MS": "1"}
            if start_ms is not None:
                env["HOTPATH_METRICS_START_MS"] = start_ms
            r = run([sys.executable, "-c", SOCKETS_AT_50_MS], env=env, fmt="none")
            assert r.returncode == 0, r.stderr
            assert r.stdout.decode().strip() == expect, (start_ms, r.stdout, r.stderr)
            registry = os.path.join(runtime, "hotpath")
            made = os.listdir(registry) if os.path.isdir(registry) else []
            assert made == ([] if start_ms is None else ["token"]), made
        finally:
            shutil.rmtree(runtime, ignore_errors=True)


def test_the_server_starts_once_the_process_has_lived_its_start_ms():
    for start_ms, low, high in ((None, 0.95, 2.5), ("0", 0.0, 0.6), ("2000", 1.95, 3.5)):
        runtime = use_runtime(tempfile.mkdtemp(prefix="hotpath-rt-"))
        env = {"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": runtime}
        if start_ms is not None:
            env["HOTPATH_METRICS_START_MS"] = start_ms
        began = time.monotonic()
        p = subprocess.Popen([target("live"), "30000"], env=clean_env(env), stdout=subprocess.DEVNULL)
        try:
            entry = wait_entry(runtime, p.pid, 6.0)
            took = time.monotonic() - began
            assert entry and low <= took <= high, (start_ms, took)
            assert get_json(f"http://127.0.0.1:{entry['port']}/profiler_status")[1]["pid"] == p.pid
        finally:
            p.kill()
            p.wait()
            shutil.rmtree(runtime, ignore_errors=True)


def test_server_off():
    with Live(env={"HOTPATH_METRICS_SERVER_OFF": "true"}, served=False) as p:
        assert p.entry is None
        assert not os.path.exists(os.path.join(p.registry, f"{p.pid}.json"))


def test_busy_port_explicit_says_so_default_is_silent():
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        with Live(env={"HOTPATH_METRICS_PORT": str(port)}) as p:
            assert p.port and p.port != port
            assert curl(p.url("/threads"))[0] == 200
            err = p.stop()
        lines = [l for l in err.decode().splitlines() if l.startswith("hotpath:")]
        assert len(lines) == 1 and f"metrics port {port}" in lines[0], err
    finally:
        busy.close()
    # two processes on the default port: the second takes another one, silently
    with Live() as a, Live(runtime=a.runtime) as b:
        assert a.port and b.port and a.port != b.port
        assert get_json(a.url("/profiler_status"))[1]["pid"] == a.pid
        assert get_json(b.url("/profiler_status"))[1]["pid"] == b.pid
        err = b.stop()
        assert b"hotpath:" not in err, err
        listed = subprocess.run([os.path.join(os.path.dirname(target("x")), "..", "..", "hotpath-run.sh"),
                                 "prometheus-targets"], env=clean_env({"XDG_RUNTIME_DIR": a.runtime}, preload=False),
                                capture_output=True)
        groups = json.loads(listed.stdout)
        assert [g["labels"]["pid"] for g in groups] == [str(a.pid)]    # b exited: not listed


def test_registry_file_removed_at_exit_and_stale_ones_cleaned():
    with Live(("live", "300"), env={"HOTPATH_METRICS_START_MS": "0"}) as p:   # registers, then ends
        path = os.path.join(p.registry, f"{p.pid}.json")
        assert os.path.exists(path)
        stale = os.path.join(p.registry, "999999999.json")
        p.proc.wait(10)
        assert not os.path.exists(path)
        with open(stale, "w") as f:
            f.write("{}")
        with Live(runtime=p.runtime) as q:
            assert q.entry
            assert not os.path.exists(stale)


def test_every_way_of_ending_leaves_the_registry():
    # _exit runs no atexit handler, a fatal signal none either, and fork children that _exit are
    # what shells and servers make by the thousand: none may leave its entry behind
    runtime = tempfile.mkdtemp(prefix="hotpath-rt-")
    try:
        for mode in ("return", "_exit", "_Exit", "segv", "forks"):
            # a pass a millisecond: each registers at its first pass, before it ends
            r = run([target("exit_paths"), mode], env={"XDG_RUNTIME_DIR": runtime, "HOTPATH_THREADS_INTERVAL_MS": "1",
                                                       "HOTPATH_METRICS_START_MS": "0"},
                    fmt="none")
            assert r.returncode != 127, r.stderr
            registry = os.path.join(runtime, "hotpath")
            left = [n for n in os.listdir(registry) if n != "token"] if os.path.exists(registry) else []
            assert left == [], (mode, left)
        # killed from outside while registered: the entry is there, then gone
        env = clean_env({"XDG_RUNTIME_DIR": runtime, "HOTPATH_OUTPUT_FORMAT": "none"})
        p = subprocess.Popen([target("exit_paths"), "wait"], env=env, stdout=subprocess.PIPE)
        assert wait_entry(runtime, p.pid, 5.0), "never registered"
        p.terminate()
        assert p.wait(10) == -signal.SIGTERM
        assert os.listdir(os.path.join(runtime, "hotpath")) == ["token"]      # the user's, kept
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_daemon_moves_to_the_configured_port_once_its_parent_has_exited():
    """A daemon's child found the port busy at its fork (its parent held it) and stayed on an
    ephemeral one after the parent exited: `curl 127.0.0.1:6770` found nothing."""
    port = free_port()
    runtime = use_runtime(tempfile.mkdtemp(prefix="hotpath-rt-"))
    try:
        env = clean_env({"XDG_RUNTIME_DIR": runtime, "HOTPATH_OUTPUT_FORMAT": "none",
                         "HOTPATH_METRICS_PORT": str(port)})
        parent = subprocess.Popen([target("exit_paths"), "daemonize"], env=env, stdout=subprocess.DEVNULL)
        assert parent.wait(30) == 0
        entries = os.path.join(runtime, "hotpath")

        def daemon_on_port():
            for name in os.listdir(entries) if os.path.isdir(entries) else []:
                try:
                    e = json.load(open(os.path.join(entries, name)))
                except (OSError, ValueError):
                    continue
                if e["pid"] != parent.pid and e["port"] == port:
                    return e
            return None

        entry = wait_for(daemon_on_port, timeout=2.5)     # the daemon lives 3 s
        assert entry, os.listdir(entries)
        status, st = get_json(f"http://127.0.0.1:{port}/profiler_status")
        assert status == 200 and st["pid"] == entry["pid"] and st["port"] == port, st
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_process_keeps_the_port_its_clients_found_when_the_configured_one_frees():
    """Only a daemon moves to the configured port: another process on an ephemeral port (a second
    program) keeps it, or the console and Prometheus targets that found it lose it."""
    port = free_port()
    with Live(env={"HOTPATH_METRICS_PORT": str(port)}) as a:
        with Live(env={"HOTPATH_METRICS_PORT": str(port)}, runtime=a.runtime) as b:
            assert a.port == port and b.port != port, (a.port, b.port)
            a.stop()
            time.sleep(2.5)
            assert json.load(open(os.path.join(b.registry, f"{b.pid}.json")))["port"] == b.port
            status, st = get_json(b.url("/profiler_status"))
            assert status == 200 and st["pid"] == b.pid


def test_the_profilers_threads_are_named_as_its_own():
    """ps -L, top -H and a program listing /proc/self/task showed the profiler's two threads under
    the program's own name."""
    with Live() as p:
        time.sleep(0.6)                                   # the server starts at the first pass
        task = f"/proc/{p.pid}/task"
        names = sorted(open(f"{task}/{t}/comm").read().strip() for t in os.listdir(task))
        assert names == ["hotpath-sampler", "hotpath-server", "live", "worker"], names


def test_fork_child_serves_itself():
    with Live(("live", "30000", "fork")) as p:
        # two "ready" lines, the parent's and the child's, in either order: one was read already
        pids = {p.pid, p.first_ready}
        while len(pids) < 2:
            line = p.proc.stdout.readline().decode()
            assert line.startswith("ready"), line
            pids.add(int(line.split()[1]))
        entries = {}
        for pid in pids:
            path = os.path.join(p.registry, f"{pid}.json")
            assert wait_for(lambda: os.path.exists(path))
            entries[pid] = json.load(open(path))
        assert entries[p.pid]["port"] != [e for k, e in entries.items() if k != p.pid][0]["port"]
        for pid, e in entries.items():
            status, st = get_json(f"http://127.0.0.1:{e['port']}/profiler_status")
            assert st["pid"] == pid
        child = next(pid for pid in pids if pid != p.pid)
        os.kill(child, 15)


BIND_PORT = """
import socket, sys, time
s = socket.socket()                # no SO_REUSEADDR: the port must be wholly free
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
print("bound", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_program_binding_the_servers_port_gets_it():
    """The program wins the port: the server lets go, and serves again on another one."""
    port = free_port()
    runtime = tempfile.mkdtemp(prefix="hotpath-rt-")
    try:
        bare = subprocess.run([sys.executable, "-c", BIND_PORT, str(port), "0"], capture_output=True,
                              env=clean_env(preload=False), timeout=30)
        assert bare.stdout == b"bound\n", bare.stderr
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": runtime,
                         "HOTPATH_METRICS_PORT": str(port)})
        p = subprocess.Popen([sys.executable, "-c", BIND_PORT, str(port), "30"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert p.stdout.readline() == b"bound\n", p.stderr.read() if p.poll() is not None else b""

            def moved():
                entry = wait_entry(runtime, p.pid, 0.5)
                return entry and entry["port"] != port and entry["port"]
            new_port = wait_for(moved, 8)
            assert new_port, "the server did not come back on another port"
            assert curl(f"http://127.0.0.1:{new_port}/profiler_status", timeout=2)[0] == 200
        finally:
            p.kill()
            p.wait()
            err = p.stderr.read()
            p.stdout.close()
            p.stderr.close()
        assert err == b"", err          # no "port busy" line: the program took it, not a bad setting
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_program_closing_every_descriptor_gets_the_server_back():
    with Live(("live", "30000", "closeall")) as p:
        def answers():
            try:
                return curl(p.url("/profiler_status"), timeout=2)[0] == 200
            except AssertionError:
                return False
        assert wait_for(answers, 8)


def test_bad_requests_get_their_status():
    with Live() as p:
        status, answer = raw_status(p.port, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")
        assert status == 431
        status, answer = raw_status(p.port, b"GET / HTTP/1.1\r\n" + b"X-Pad: " + b"b" * 9000 + b"\r\n\r\n")
        assert status == 431
        assert raw_status(p.port, b"hello there\r\n\r\n")[0] == 400
        assert raw_status(p.port, b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\n")[0] == 400
        assert raw_status(p.port, b"POST /threads HTTP/1.1\r\nContent-Length: 0\r\n\r\n")[0] == 405
        assert raw_status(p.port, b"DELETE / HTTP/1.1\r\n\r\n")[0] == 405
        status, answer = raw_status(p.port, b"GET /threads HTTP/1.1\r\n\r\n")
        assert status == 200 and answer.endswith(b"}\n")


def test_silent_and_stuck_clients_time_out_without_blocking_others():
    with Live() as p:
        silent = [socket.create_connection(("127.0.0.1", p.port)) for _ in range(3)]
        partial = socket.create_connection(("127.0.0.1", p.port))
        partial.sendall(b"GET /thr")
        start = time.monotonic()
        assert curl(p.url("/threads"))[0] == 200
        assert time.monotonic() - start < 2
        # a client that asks for a lot and never reads
        greedy = socket.create_connection(("127.0.0.1", p.port))
        greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        greedy.sendall(b"GET /report HTTP/1.1\r\n\r\n")
        assert curl(p.url("/io"))[0] == 200
        silent[0].settimeout(10)
        start = time.monotonic()
        assert silent[0].recv(1) == b""                    # closed by the server after its timeout
        assert time.monotonic() - start < 8
        for s in silent + [partial, greedy]:
            s.close()
        assert p.proc.poll() is None


def test_a_thousand_connections_hold_few_descriptors():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    try:
        with Live() as p:
            conns = []
            for _ in range(1000):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", p.port))
                conns.append(s)
            time.sleep(0.5)
            held = [os.readlink(f"/proc/{p.pid}/fd/{f}") for f in os.listdir(f"/proc/{p.pid}/fd")]
            sockets = [h for h in held if h.startswith("socket:")]
            assert len(sockets) <= 9, held               # the listener and 8 connections at most
            for s in conns:
                s.close()
            def answers():
                try:
                    return curl(p.url("/threads"), timeout=3)[0] == 200
                except AssertionError:
                    return False
            assert wait_for(answers, 15)
            assert p.proc.poll() is None
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_abrupt_disconnects_mid_response_never_raise_sigpipe():
    with Live() as p:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", p.port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.sendall(b"GET /report HTTP/1.1\r\n\r\n")
            s.close()                                       # RST while the server writes
        time.sleep(0.3)
        assert p.proc.poll() is None                        # SIGPIPE would have killed it
        assert curl(p.url("/threads"))[0] == 200


def test_real_prometheus_scrapes_two_profiled_processes_via_file_sd():
    import shutil
    import tempfile
    import urllib.parse
    import urllib.request
    from harness import RUN
    from live import free_port
    prometheus = shutil.which("prometheus")
    assert prometheus, "the prometheus package is not installed (scripts/install-deps.sh)"
    # scraped with the user's token (authorization.credentials_file, as docs/REFERENCE.md says); a job
    # without it is refused (up == 0)
    with Live() as a, Live(runtime=a.runtime) as b, tempfile.TemporaryDirectory() as d:
        targets = subprocess.run([RUN, "prometheus-targets"], capture_output=True, check=True,
                                 env=clean_env({"XDG_RUNTIME_DIR": a.runtime}, preload=False)).stdout
        groups = json.loads(targets)
        assert sorted(int(g["labels"]["pid"]) for g in groups) == sorted([a.pid, b.pid])
        with open(os.path.join(d, "targets.json"), "wb") as f:
            f.write(targets)
        with open(os.path.join(d, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: hotpath\n    file_sd_configs:\n"
                    f"      - files: ['{d}/targets.json']\n"
                    f"    authorization:\n      credentials_file: {token_file(a.runtime)}\n"
                    "  - job_name: no-token\n    file_sd_configs:\n"
                    f"      - files: ['{d}/targets.json']\n")
        port = free_port()
        server = subprocess.Popen([prometheus, f"--config.file={d}/prometheus.yml",
                                   f"--storage.tsdb.path={d}/data", f"--web.listen-address=127.0.0.1:{port}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            query = urllib.parse.quote('count by (pid) (hotpath_thread_cpu_seconds_total{name="worker"})')
            url = f"http://127.0.0.1:{port}/api/v1/query?query={query}"

            def both():
                try:
                    answer = json.load(urllib.request.urlopen(url, timeout=2))
                except OSError:
                    return None
                found = {int(r["metric"]["pid"]) for r in answer["data"]["result"]}
                return found if found == {a.pid, b.pid} else None
            assert wait_for(both, 40) == {a.pid, b.pid}
            want = {("hotpath", a.pid): "1", ("hotpath", b.pid): "1",
                    ("no-token", a.pid): "0", ("no-token", b.pid): "0"}

            def up():
                query = urllib.parse.quote("up")
                answer = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?query={query}", timeout=5))
                return {(r["metric"]["job"], int(r["metric"]["pid"])): r["value"][1] for r in answer["data"]["result"]}
            assert wait_for(lambda: up() == want, 20), up()
        finally:
            server.terminate()
            server.wait(20)
            server.stderr.close()


def test_grafana_dashboard_uses_only_metrics_that_exist():
    import re
    from harness import ROOT
    dash = json.load(open(os.path.join(ROOT, "grafana", "hotpath-dashboard.json")))
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    used = {re.sub(r"_(bucket|sum|count)$", "", m) for e in exprs for m in re.findall(r"hotpath_[a-z_]+", e)}
    with Live() as p:
        time.sleep(0.6)
        text = curl(p.url("/metrics"))[2].decode()
    families = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
    assert used and used <= families, used - families


def test_scrapes_leave_the_programs_figures_alone():
    with Live() as p:
        time.sleep(0.4)
        before = get_json(p.url("/report"))[1]
        for path in ("/metrics", "/report", "/threads", "/io", "/mutexes") * 6:
            assert curl(p.url(path))[0] == 200
        after = get_json(p.url("/report"))[1]
        main_before = next(r for r in before["threads"]["rows"] if r["name"] == "main")
        main_after = next(r for r in after["threads"]["rows"] if r["name"] == "main")
        for key in ("alloc_bytes", "alloc_count", "dealloc_bytes", "io_count"):
            assert main_before[key] == main_after[key], key     # main only waits in pthread_join
        assert sorted(r["name"] for r in after["threads"]["rows"]) == ["main", "worker"]
        names = [r["name"] for r in after["io"]["resources"]]
        assert not any("127.0.0.1" in n or n.startswith("socket") or "tcp" in n for n in names), names
        assert sum(r.get("locks_count", 0) for r in after["mutexes"]["rows"]) >= 0


def test_exec_into_an_unprofiled_image_leaves_the_registry():
    import tempfile
    with tempfile.TemporaryDirectory() as runtime:
        use_runtime(runtime)
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": runtime,
                         "HOTPATH_NO_CHILDREN": "true"})
        # the shell is profiled, registers, then execs sleep without the library
        p = subprocess.Popen(["sh", "-c", "echo ready; exec sleep 3"], env=env, stdout=subprocess.PIPE)
        try:
            assert p.stdout.readline() == b"ready\n"
            path = os.path.join(runtime, "hotpath", f"{p.pid}.json")
            assert wait_for(lambda: not os.path.exists(path), 3)
            time.sleep(0.3)
            assert not os.path.exists(path)
        finally:
            p.kill()
            p.wait()
            p.stdout.close()
        # a profiled image after exec registers itself under the same pid
        env.pop("HOTPATH_NO_CHILDREN")
        p = subprocess.Popen(["sh", "-c", f"exec {target('live')} 3000"], env=env, stdout=subprocess.PIPE)
        try:
            assert p.stdout.readline().startswith(b"ready")
            path = os.path.join(runtime, "hotpath", f"{p.pid}.json")
            assert wait_for(lambda: os.path.exists(path), 3)
            entry = json.load(open(path))
            assert entry["command"].endswith("live")
            assert get_json(f"http://127.0.0.1:{entry['port']}/profiler_status")[1]["pid"] == p.pid
        finally:
            p.kill()
            p.wait()
            p.stdout.close()


def test_prometheus_targets_help_says_how_to_scrape_with_the_token():
    from harness import RUN
    runtime = tempfile.mkdtemp(prefix="hotpath-rt-")
    try:
        r = subprocess.run([RUN, "prometheus-targets", "--help"], capture_output=True, text=True,
                           env=clean_env({"XDG_RUNTIME_DIR": runtime}, preload=False))
        assert r.returncode == 0, r.stderr
        assert f"credentials_file: {runtime}/hotpath/token" in r.stdout and "authorization:" in r.stdout, r.stdout
        listed = subprocess.run([RUN, "prometheus-targets"], capture_output=True, text=True,
                                env=clean_env({"XDG_RUNTIME_DIR": runtime}, preload=False))
        assert json.loads(listed.stdout) == []                   # still the JSON, without --help
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_fork_child_made_before_the_server_starts_keeps_its_stdin():
    """A fork child closed its copies of the parent's client sockets, and before the server had
    started those were descriptor 0 eight times over: a subshell in the first 250 ms (then, with
    the server's 1 s start, the first second) lost its stdin."""
    for script in ("( cat )", "sleep 0.5; ( cat )"):
        r = run(["bash", "-c", script], fmt="none", input=b"hello\n")
        assert r.returncode == 0 and r.stdout == b"hello\n", (script, r.stdout, r.stderr)
