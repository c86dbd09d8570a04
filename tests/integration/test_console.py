"""hotpath-console for real: under tmux against profiled programs, reading the screen with
capture-pane and typing with send-keys."""
import os
import re
import shutil
import subprocess
import time

from harness import ROOT, RUN, clean_env
from live import Live, free_port, get_json

CONSOLE = os.path.join(ROOT, "build", "hotpath-console")


class Tmux:
    def __init__(self, cmd, env):
        self.sock = f"hotpath-test-{os.getpid()}-{time.monotonic_ns()}"
        self.env = clean_env(env, preload=False)
        self.env.pop("TMUX", None)
        subprocess.run(["tmux", "-L", self.sock, "new-session", "-d", "-x", "150", "-y", "30",
                        "env", f"XDG_RUNTIME_DIR={self.env.get('XDG_RUNTIME_DIR', '')}", *cmd],
                       env=self.env, check=True)

    def screen(self):
        p = subprocess.run(["tmux", "-L", self.sock, "capture-pane", "-p"], capture_output=True, env=self.env)
        return p.stdout.decode()

    def keys(self, *keys):
        subprocess.run(["tmux", "-L", self.sock, "send-keys", *keys], env=self.env, check=True)

    def alive(self):
        return subprocess.run(["tmux", "-L", self.sock, "has-session"], capture_output=True, env=self.env).returncode == 0

    def wait(self, pattern, timeout=6.0):
        deadline = time.monotonic() + timeout
        while True:
            s = self.screen()
            if re.search(pattern, s):
                return s
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on the screen:\n{s}")
            time.sleep(0.1)

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True, env=self.env)


def console_shows(args, runtime, *patterns):
    """The console under tmux shows each pattern in turn."""
    t = Tmux([CONSOLE, *args], {"XDG_RUNTIME_DIR": runtime})
    try:
        for pattern in patterns:
            t.wait(pattern)
    finally:
        t.close()


def test_console_marks_the_growing_thread_in_its_trend_column():
    port = free_port()
    with Live(args=("leak_trend", "leak", "8"), env={"HOTPATH_METRICS_PORT": str(port),
                                                    "HOTPATH_ALLOC_SAMPLE_BYTES": "0",
                                                    "HOTPATH_GROWTH_WINDOW_S": "2"}) as p:
        t = Tmux([CONSOLE, "--port", str(port)], {"HOTPATH_TUI_REFRESH_INTERVAL_MS": "200",
                                                   "XDG_RUNTIME_DIR": p.runtime})
        try:
            t.wait(r"Diff\s+Trend")
            screen = t.wait(r"\bleaker\s+\d+.*grow \+\d", timeout=7.0)
            assert not re.search(r"\bchurner\s+\d+.*grow", screen), screen
        finally:
            t.close()


def test_console_shows_the_worker_and_updates_and_switches_tabs():
    port = free_port()
    # the live target allocates ~1.5 MB in the seconds this takes: at the default 512 KiB the
    # Allocations tab could still be empty (e^-3 of the time), at 16 KiB it never is
    with Live(env={"HOTPATH_METRICS_PORT": str(port), "HOTPATH_ALLOC_SAMPLE_BYTES": "16384"}) as p:
        t = Tmux([CONSOLE, "--port", str(port)], {"HOTPATH_TUI_REFRESH_INTERVAL_MS": "200",
                                                   "XDG_RUNTIME_DIR": p.runtime})
        try:
            screen = t.wait(r"\bworker\s+\d+\s+\w")
            assert f"pid {p.pid}" in screen and "live" in screen
            first = re.search(r"\bworker\s+\d+.*", screen).group(0)
            time.sleep(1.0)
            later = re.search(r"\bworker\s+\d+.*", t.screen()).group(0)
            assert first != later, (first, later)            # the row updates
            t.keys("2")
            t.wait(r"lock\s+mutex\s+\d+")
            t.wait(r"rw\s+rwlock read")
            t.keys("3")
            t.wait(r"/dev/null\s+char")
            views = get_json(p.url("/profiler_status"))[1]["views"]
            heads = {"functions_alloc": r"Function\s+Module\s+Bytes\s+Calls\s+Live",
                     "functions_cpu": r"Function\s+Module\s+Self"}
            for key, tab in (("functions_alloc", "4"), ("functions_cpu", "5")):
                t.keys(tab)
                if key in views:
                    t.wait(heads[key])
                    if key == "functions_alloc":          # the worker's sampled allocations, in bytes
                        t.wait(r"\bworker\s+live\s+[\d.]+ [KM]?B\s+\d+\s+[\d.]+ [KM]?B")
                else:
                    t.wait(f"view not available: {key}")
                    t.wait(r"\bworker\s+\d+")                # per-thread figures instead, never empty
            t.keys("1")
            t.keys("p")
            t.wait(r"\[paused\]")
            t.keys("p", "s", "j", "k")
            t.wait(r"Thread.*v")                              # a sort column marked
            t.keys("q")
            deadline = time.monotonic() + 3
            while t.alive() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not t.alive()
        finally:
            t.close()


def test_console_says_plainly_what_is_wrong():
    port = free_port()
    t = Tmux([CONSOLE, "--port", str(port)], {})
    try:
        t.wait(rf"cannot connect to 127\.0\.0\.1:{port}: connection refused")
    finally:
        t.close()
    with Live(env={"HOTPATH_METRICS_PORT": str(port), "HOTPATH_METRICS_AUTH_TOKEN": "tok"}) as p:
        t = Tmux([CONSOLE, "--port", str(port)], {"XDG_RUNTIME_DIR": p.runtime})
        try:
            t.wait(r"401: token required")
        finally:
            t.close()
        t = Tmux([CONSOLE, "--port", str(port), "--token", "tok"], {"XDG_RUNTIME_DIR": p.runtime})
        try:
            t.wait(r"\bworker\s+\d+")
            p.proc.kill()
            t.wait(r"process exited")
        finally:
            t.close()


def test_console_lists_and_attaches_by_pid_with_the_auto_token():
    with Live(env={"HOTPATH_METRICS_AUTH_TOKEN": "auto"}) as p:     # the default, said
        env = clean_env({"XDG_RUNTIME_DIR": p.runtime}, preload=False)
        listed = subprocess.run([CONSOLE, "--list"], env=env, capture_output=True, text=True)
        assert listed.returncode == 0
        assert re.search(rf"^{p.pid}\s+{p.port}\s+yes\s+\S*live", listed.stdout, re.M), listed.stdout
        via_run = subprocess.run([RUN, "console", "--list"], env=env, capture_output=True, text=True)
        assert str(p.pid) in via_run.stdout
        console_shows(["--pid", str(p.pid)], p.runtime, rf"pid {p.pid}", r"\bworker\s+\d+")
        missing = subprocess.run([CONSOLE, "--pid", "999999999"], env=env, capture_output=True, text=True)
        assert missing.returncode == 1 and "no profiled process 999999999" in missing.stderr


def test_console_picks_a_process_by_pid_or_asks_which_one():
    """`hotpath-run console` connected to whichever process took 6770 first: with several
    registered it asks (on a terminal) or names them and exits 2; --pid picks one; each with the
    user's token, read from its file."""
    with Live() as a, Live(runtime=a.runtime) as b:
        assert a.token and a.entry["token_required"]
        env = clean_env({"XDG_RUNTIME_DIR": a.runtime}, preload=False)
        asked = subprocess.run([CONSOLE], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert asked.returncode == 2 and asked.stdout == "", asked
        lines = asked.stderr.splitlines()
        assert len(lines) == 1 and str(a.pid) in lines[0] and str(b.pid) in lines[0] and "--pid" in lines[0], lines
        for p in (a, b):
            console_shows(["--pid", str(p.pid)], p.runtime, rf"pid {p.pid}\b", r"\bworker\s+\d+")
        # on a terminal: a numbered list, and the number typed
        t = Tmux([CONSOLE], {"XDG_RUNTIME_DIR": a.runtime})
        try:
            screen = t.wait(r"which one\? \[1-2\]")
            first, second = sorted((a.pid, b.pid))
            assert re.search(rf"1\)\s+{first}\s+\S*live", screen) and re.search(rf"2\)\s+{second}\s+\S*live", screen), screen
            t.keys("2", "Enter")
            t.wait(rf"pid {second}\b")
            t.wait(r"\bworker\s+\d+")
        finally:
            t.close()
        b.stop()
        console_shows([], a.runtime, rf"pid {a.pid}\b")          # one process left: no question


def test_make_install_installs_the_console():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(["make", "-s", "-C", ROOT, "install", f"DESTDIR={d}", "PREFIX=/usr"],
                           capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr
        console = os.path.join(d, "usr", "bin", "hotpath-console")
        assert os.access(console, os.X_OK)
        usage = subprocess.run([console, "--help"], capture_output=True, text=True)
        assert usage.returncode == 0 and "--pid N" in usage.stdout and "q quit" in usage.stdout
        listed = subprocess.run([os.path.join(d, "usr", "bin", "hotpath-run"), "console", "--help"],
                                capture_output=True, text=True)
        assert listed.returncode == 0 and "hotpath-console" in listed.stdout


def test_console_names_use_the_terminals_width_and_show_their_end():
    """Resource names were cut at 36 characters whatever the terminal's width, so three Python
    files read alike as /usr/lib/python3.11/encodings/__pyca (found by a sweep). The name column
    takes the room there is, and a name still too long shows its end."""
    port = free_port()
    d = "/tmp/hotpath-console-" + "long-directory-name-" * 3 + str(os.getpid())
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "the-file-written.txt")
    script = 'exec 3>"$1"; echo ready $$; i=0; while [ $i -lt 800 ]; do echo x >&3; i=$((i+1)); done; sleep 8'
    try:
        with Live(cmd=["sh", "-c", script, "sh", path], env={"HOTPATH_METRICS_PORT": str(port)}) as p:
            t = Tmux([CONSOLE, "--port", str(port)], {"HOTPATH_TUI_REFRESH_INTERVAL_MS": "200",
                                                       "XDG_RUNTIME_DIR": p.runtime})
            try:
                t.wait(r"Thread")
                t.keys("3")
                # 112 characters in an 81-column name field (150 columns): its end, not its start
                t.wait(r"\.\.\." + re.escape(path[-78:]) + r"\s+file")
            finally:
                t.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)
