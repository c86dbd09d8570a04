"""How an image ended and who its parent was (the report's "ended" and "ppid"), the run's
directory hotpath-run makes (HOTPATH_RUN_DIR: PID.IMAGE.json and .txt there, nothing on stderr),
and an image that exec'd away quickly: one line under plain LD_PRELOAD, no text report in a run's
directory."""
import json
import os
import signal
import stat
import subprocess
import tempfile
import sys
import time

from harness import clean_env, run, validate


def ended(report):
    return report["ended"]


def test_exit_status_signal_and_exec_are_said():
    r = run(["sh", "-c", "exit 7"])
    assert r.returncode == 7
    assert ended(r.report) == {"how": "exit", "status": 7, "signal": None, "exec": None}

    r = run([sys.executable, "-c", "import os; os._exit(5)"])
    assert r.returncode == 5
    assert ended(r.report) == {"how": "exit", "status": 5, "signal": None, "exec": None}

    r = run(["sh", "-c", "kill -TERM $$"])
    assert r.returncode == -signal.SIGTERM
    assert ended(r.report) == {"how": "signal", "status": None, "signal": "SIGTERM", "exec": None}
    assert r.report["ended_by_signal"] == "SIGTERM"


def test_an_exec_is_said_by_the_image_that_made_it():
    with tempfile.TemporaryDirectory() as d:
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "r-%p.%n.json")})
        p = subprocess.run(["sh", "-c", "exec /bin/true"], env=env, capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        names = sorted(os.listdir(d))
        assert len(names) == 2, names
        first, second = (validate(json.load(open(os.path.join(d, n)))) for n in names)
        assert (first["image"], second["image"]) == (0, 1)
        assert ended(first) == {"how": "exec", "status": None, "signal": None, "exec": "/bin/true"}
        assert ended(second)["how"] == "exit" and ended(second)["status"] == 0


def test_ppid_is_the_parent_at_start():
    r = run(["sh", "-c", "/bin/true; sh -c 'exit 0'"])
    by_pid = r.reports
    top = [rep for rep in by_pid.values() if rep["command"] == "sh" and rep["ppid"] == os.getpid()]
    assert len(top) == 1, [(rep["pid"], rep["ppid"], rep["command"]) for rep in by_pid.values()]
    children = [rep for rep in by_pid.values() if rep is not top[0]]
    assert children and all(rep["ppid"] == top[0]["pid"] for rep in children), \
        [(rep["pid"], rep["ppid"]) for rep in by_pid.values()]


def run_in_dir(cmd, fmt="table", extra=None, timeout=60):
    d = tempfile.mkdtemp(prefix="hotpath-run-")
    env = clean_env(dict({"HOTPATH_RUN_DIR": d, "HOTPATH_OUTPUT_FORMAT": fmt}, **(extra or {})))
    p = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout)
    return p, d


def test_a_run_dir_gets_every_image_and_stderr_gets_nothing():
    script = "import time; t = time.time()\nwhile time.time() - t < 0.25: pass"
    p, d = run_in_dir(["sh", "-c", 'exec env bash -c "python3 -c \\"$0\\"; exit 4"', script])
    try:
        assert p.returncode == 4
        assert b"[hotpath]" not in p.stderr and b"threads - " not in p.stderr, p.stderr
        names = sorted(os.listdir(d))
        jsons = [n for n in names if n.endswith(".json")]
        reports = {n: validate(json.load(open(os.path.join(d, n)))) for n in jsons}
        for n, rep in reports.items():                       # PID.IMAGE.json, mode 0600
            assert n == "%d.%d.json" % (rep["pid"], rep["image"])
            assert stat.S_IMODE(os.stat(os.path.join(d, n)).st_mode) == 0o600
        top = sorted((rep for rep in reports.values() if rep["ppid"] == os.getpid()), key=lambda r: r["image"])
        assert [r["command"].rsplit("/", 1)[-1] for r in top[:3]] == ["sh", "env", "bash"], \
            [r["command"] for r in top]
        assert [ended(r)["how"] for r in top[:2]] == ["exec", "exec"]
        assert ended(top[-1]) == {"how": "exit", "status": 4, "signal": None, "exec": None}
        # the quick exec'd images have no text report; Python's (it ran 0.25 s) has
        for r in top[:2]:
            assert "%d.%d.txt" % (r["pid"], r["image"]) not in names, names
        py = [r for r in reports.values() if "python" in r["command"] and ended(r)["how"] == "exit"]
        assert len(py) == 1, [r["command"] for r in reports.values()]
        with open(os.path.join(d, "%d.%d.txt" % (py[0]["pid"], py[0]["image"]))) as f:
            text = f.read()
        assert text.startswith("[hotpath] pid %d | " % py[0]["pid"]) and "threads - " in text
    finally:
        subprocess.run(["rm", "-rf", d])


def test_a_run_dir_in_json_has_no_text_reports():
    p, d = run_in_dir(["sh", "-c", "/bin/true"], fmt="json")
    try:
        assert p.returncode == 0 and p.stderr == b""
        names = os.listdir(d)
        assert names and all(n.endswith(".json") for n in names), names
    finally:
        subprocess.run(["rm", "-rf", d])


def test_a_checkpoint_goes_into_the_run_dir():
    d = tempfile.mkdtemp(prefix="hotpath-run-")
    try:
        env = clean_env({"HOTPATH_RUN_DIR": d, "HOTPATH_CHECKPOINT_S": "1"})
        p = subprocess.Popen(["sleep", "30"], env=env, stderr=subprocess.PIPE)
        path = os.path.join(d, "%d.0.json" % p.pid)
        deadline = time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.1)
        p.kill()
        p.wait()
        report = validate(json.load(open(path)))
        assert report["final"] is False
        assert ended(report) == {"how": "running", "status": None, "signal": None, "exec": None}
        assert os.path.exists(os.path.join(d, "%d.0.txt" % p.pid))
    finally:
        subprocess.run(["rm", "-rf", d])


def test_plain_preload_says_a_quick_exec_in_one_line():
    p = subprocess.run(["sh", "-c", "exec /bin/true"], env=clean_env(), capture_output=True, timeout=60)
    lines = p.stderr.decode().splitlines()
    assert lines[0] == "[hotpath] pid %s sh -> exec /bin/true" % lines[0].split()[2], lines[:3]
    assert sum(1 for l in lines if l.startswith("threads - ")) == 1, p.stderr   # true's report only
    # an image that ran longer before its exec keeps its report
    p = subprocess.run(["sh", "-c", "sleep 0.3; exec /bin/true"], env=clean_env(), capture_output=True, timeout=60)
    text = p.stderr.decode()
    assert "-> exec" not in text and text.count("threads - ") == 3, text    # sh, sleep, true
