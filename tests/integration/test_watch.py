"""hotpath-run --pid: the threads view of a running process, watched from outside (a process not
started under the profiler, a static one, another user's), in every format and live."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from harness import RUN, clean_env, rows, target, validate
from live import curl, other_user, wait_entry
from test_console import CONSOLE, Tmux

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="another user's process needs root to make")


class Watched:
    """The watched target (tests/targets/watched.c), started without the profiler, and a watch of it
    (hotpath-run --pid) whose report goes to a file. go() lets the target's threads begin once the
    watch runs (its live server registered: the sampler's first reading is taken)."""

    def __init__(self, program="watched", args=(), watch_args=(), fmt="json", as_user=None, server=True):
        self.dir = tempfile.mkdtemp(prefix="hotpath-watch-")
        os.chmod(self.dir, 0o777)
        self.runtime = os.path.join(self.dir, "runtime")
        os.mkdir(self.runtime, 0o700)
        self.out = os.path.join(self.dir, "report." + ("json" if fmt.startswith("json") else "txt"))
        cmd = [target(program), *args]
        if as_user:
            cmd = ["setpriv", f"--reuid={as_user[0]}", f"--regid={as_user[1]}", "--clear-groups", *cmd]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=clean_env(preload=False))
        assert self.proc.stdout.readline() == b"ready\n"
        self.pid = self.proc.pid
        env = {"XDG_RUNTIME_DIR": self.runtime}
        if not server:
            env["HOTPATH_METRICS_SERVER_OFF"] = "true"
        self.watch_cmd = [RUN, "--pid", str(self.pid), "-i", "100", "-f", fmt, "-o", self.out, *watch_args]
        self.env = clean_env(env, preload=False)

    def start(self, prefix=()):
        self.watch = subprocess.Popen([*prefix, *self.watch_cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=self.env)
        return self

    def wait_registered(self):
        assert wait_entry(self.runtime, self.pid, timeout=10), self.watch_stderr()
        return self

    def go(self):
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.flush()

    def lines(self, n):
        """The target's own figures: {thread: its CPU ns by getrusage}."""
        said = {}
        for _ in range(n):
            name, ns = self.proc.stdout.readline().decode().split()
            said[name] = int(ns)
        return said

    def end(self, timeout=30):
        self.watch.wait(timeout)
        return self.watch.returncode

    def watch_stderr(self):
        if self.watch.poll() is None:
            return "(still running)"
        return self.watch.stderr.read().decode()

    def report(self):
        with open(self.out) as f:
            return validate(json.load(f)) if self.out.endswith(".json") else f.read()

    def close(self):
        for p in (getattr(self, "watch", None), self.proc):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        self.proc.stdout.close()
        self.proc.stdin.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def by_name(report):
    return {r["name"]: r for r in rows(report)}


def assert_within(watched_ns, own_ns, what):
    assert abs(watched_ns - own_ns) <= 0.05 * own_ns, f"{what}: watched {watched_ns} ns, its own getrusage {own_ns} ns"


@pytest.mark.parametrize("program", ["watched", "watched_static"])
def test_watch_gives_each_threads_status_and_its_cpu_within_5_percent_of_its_own(program):
    w = Watched(program, watch_args=("--duration", "4")).start().wait_registered()
    try:
        w.go()
        own = w.lines(2)             # finisher ends after 0.5 s of CPU, worker sleeps after 1 s
        assert w.end() == 0, w.watch_stderr()
        assert w.proc.poll() is None, "the watch ended the watched process"
        report = w.report()
    finally:
        w.close()
    t = by_name(report)
    assert set(t) == {"main", "sleeper", "burner", "worker", "finisher"}, t.keys()
    assert t["finisher"]["status"] == "Exited"                  # ended while watched
    assert t["burner"]["status"] == "Running"
    assert t["worker"]["status"] == "Sleeping" and t["sleeper"]["status"] == "Sleeping"
    assert_within(t["finisher"]["cpu_total_ns"], own["finisher"], "finisher (ended while watched)")
    assert_within(t["worker"]["cpu_total_ns"], own["worker"], "worker")
    assert t["sleeper"]["cpu_total_ns"] < 20_000_000
    assert t["burner"]["cpu_total_ns"] > 1_000_000_000 and t["burner"]["max_cpu_percent"] > 30
    assert t["main"]["os_tid"] == w.pid and report["pid"] == w.pid
    assert report["argv"] == [target(program)] and report["final"] is True
    assert report["ended"]["how"] == "running" and report["watched"]["process_ended"] is False
    assert report["watched"]["from_outside"] is True
    assert "io" in report["watched"]["views_needing_preload"] and "threads" not in report["watched"]["views_needing_preload"]
    assert report["watched"]["window_peak_rss_bytes"] > 0
    assert 3.5e9 < report["elapsed_ns"] < 8e9
    assert set(report) & {"io", "mutexes", "functions_cpu"} == set(), "a view the watch cannot have"


def test_the_process_ending_ends_the_watch_with_a_report():
    w = Watched(args=("exit",)).start().wait_registered()
    try:
        w.go()
        own = w.lines(2)
        assert w.end(timeout=20) == 0, w.watch_stderr()
        w.proc.wait(5)
        report = w.report()
    finally:
        w.close()
    t = by_name(report)
    assert {r["status"] for r in rows(report)} == {"Exited"}, rows(report)
    assert report["watched"]["process_ended"] is True and report["ended"]["how"] == "exit"
    assert report["ended"]["status"] is None      # a process watched from outside: not its parent
    assert_within(t["finisher"]["cpu_total_ns"], own["finisher"], "finisher")
    assert_within(t["worker"]["cpu_total_ns"], own["worker"], "worker")


def test_a_process_whose_main_thread_has_ended_is_watched_until_its_end():
    """A main thread that called pthread_exit is a zombie while the other threads run: that is no
    end of the process, for the watch's start nor for its end."""
    w = Watched(args=("main-exits",), watch_args=("--duration", "3")).start().wait_registered()
    try:
        w.go()
        own = w.lines(2)
        assert w.end() == 0, w.watch_stderr()
        assert w.proc.poll() is None
        late = subprocess.run([RUN, "--pid", str(w.pid), "--duration", "0.5", "-f", "none"], capture_output=True,
                              env=w.env, timeout=30)
        report = w.report()
    finally:
        w.close()
    assert late.returncode == 0, late.stderr        # a watch begun after the main thread ended
    t = by_name(report)
    assert report["watched"]["process_ended"] is False and report["ended"]["how"] == "running"
    assert t["main"]["status"] == "Zombie" and t["burner"]["status"] == "Running"
    assert_within(t["worker"]["cpu_total_ns"], own["worker"], "worker")


def test_ctrl_c_ends_the_watch_with_the_text_report():
    w = Watched(fmt="table").start().wait_registered()
    try:
        w.go()
        w.lines(2)
        w.watch.send_signal(signal.SIGINT)
        assert w.end() == 0, w.watch_stderr()
        assert w.proc.poll() is None, "Ctrl-C to the watch reached the watched process"
        text = w.report()
    finally:
        w.close()
    header = text.splitlines()[0]
    assert header.startswith(f"[hotpath] pid {w.pid} | ") and "watched; still running" in header, header
    assert "watched from outside" in text and "need it run under hotpath-run" in text, text
    assert re.search(r"\| finisher +\| Exited +\|", text) and re.search(r"\| burner +\| Running +\|", text), text
    assert "Alloc" not in text.split("threads - ")[1], "allocation columns for a process seen from outside"


@ROOT_ONLY
def test_another_users_readable_process_is_watched():
    """The watch runs as another user than the watched process's (root's), which it may still read."""
    uid, gid = other_user()
    w = Watched(watch_args=("--duration", "3"), server=False)
    try:
        w.start(prefix=("setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"))
        time.sleep(1.0)          # no live server here to say the watch has begun
        w.go()
        own = w.lines(2)
        assert w.end() == 0, w.watch_stderr()
        report = w.report()
    finally:
        w.close()
    t = by_name(report)
    assert t["finisher"]["status"] == "Exited" and t["burner"]["status"] == "Running"
    assert_within(t["finisher"]["cpu_total_ns"], own["finisher"], "finisher")


def refused(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, timeout=30, env=clean_env(preload=False), **kw)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_a_process_that_is_not_there_is_refused_naming_why():
    dead = subprocess.Popen(["true"])
    dead.wait()
    rc, out, err = refused([RUN, "--pid", str(dead.pid), "--duration", "1"])
    assert rc == 1 and f"no process {dead.pid}" in err and "[hotpath]" not in out + err, err


def test_a_thread_id_is_refused_naming_its_process():
    w = Watched()
    try:
        tid = next(int(t) for t in os.listdir(f"/proc/{w.pid}/task") if int(t) != w.pid)   # the sleeper
        rc, out, err = refused([RUN, "--pid", str(tid), "--duration", "1"])
    finally:
        w.close()
    assert rc == 1 and f"{tid} is a thread of process {w.pid}: watch --pid {w.pid}" in err, err


@ROOT_ONLY
def test_a_process_hidden_by_hidepid_is_refused_naming_why():
    """/proc mounted with hidepid=2 (in a mount namespace of the test's own) hides root's process
    from another user: the watch says so, and writes no report."""
    uid, gid = other_user()
    w = Watched()
    try:
        script = (f"mount -t proc -o hidepid=2 proc /proc && exec setpriv --reuid={uid} --regid={gid} --clear-groups "
                  f"{RUN} --pid {w.pid} --duration 1")
        rc, out, err = refused(["unshare", "--mount", "--propagation", "private", "sh", "-c", script])
    finally:
        w.close()
    assert rc == 1 and "hidepid" in err and "[hotpath]" not in out + err, err


def test_the_console_and_prometheus_serve_a_watched_process():
    w = Watched().start()
    try:
        entry = w.wait_registered() and wait_entry(w.runtime, w.pid)
        w.go()
        w.lines(2)
        status, _, body = curl(f"http://127.0.0.1:{entry['port']}/metrics")
        metrics = body.decode()
        assert status == 200, metrics
        assert re.search(rf'hotpath_thread_cpu_seconds_total\{{tid="\d+",name="burner",mode="user"\}} \S+', metrics), metrics[:2000]
        t = Tmux([CONSOLE, "--pid", str(w.pid)], {"XDG_RUNTIME_DIR": w.runtime, "HOTPATH_TUI_REFRESH_INTERVAL_MS": "200"})
        try:
            t.wait(rf"pid {w.pid}\b")
            t.wait(r"\bburner\b.*\bRunning\b")
        finally:
            t.close()
    finally:
        w.close()


def test_the_html_report_of_a_watched_process():
    w = Watched(watch_args=("--duration", "2.5", "--html", "PLACEHOLDER"))
    html = os.path.join(w.dir, "watch.html")
    w.watch_cmd[w.watch_cmd.index("PLACEHOLDER")] = html
    try:
        w.start().wait_registered()
        w.go()
        assert w.end() == 0, w.watch_stderr()
        with open(html) as f:
            page = f.read()
    finally:
        w.close()
    assert f'<dd id="pid">{w.pid}</dd>' in page and "burner" in page
    assert re.search(r"<dd id=\"watched\">from outside \(hotpath-run --pid\), while it ran on", page), page[:3000]
