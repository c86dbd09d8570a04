"""Defaults that show what matters and errors that say which flag (issue 27, items 1 and 2): the
threads table keeps the busiest and the growing thread, empty views are one line, I/O has a rate
over the open time, text tables fit a width keeping the end of long names; hotpath-run refuses a
bad flag value by the flag's name, a bad HOTPATH_* value is said once per run, a list keeps the
names it knows."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from harness import LIB, ROOT, RUN, clean_env, run, target, validate

PATH = os.path.dirname(sys.executable) + ":" + os.environ.get("PATH", "/usr/bin:/bin")


def launch(args, tmp, env=None, timeout=120):
    extra = {"TMPDIR": tmp, "PATH": PATH, **(env or {})}
    return subprocess.run([RUN] + args, env=clean_env(extra, preload=False), capture_output=True,
                          timeout=timeout)


def table_after(lines, title_start):
    """The title line starting with title_start and the rows (cells stripped) of the table below it."""
    at = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    body = []
    for line in lines[at + 1:]:
        if not line.startswith(("|", "+")):
            break
        if line.startswith("|"):
            body.append([c.strip() for c in line.strip("|").split("|")])
    return lines[at], body[0], body[1:]


# ---- defaults ----

def test_a_spinner_hidden_among_seven_allocating_threads_is_shown():
    """Sorted by Alloc with 5 rows, the spinner (all the CPU, no allocation) and the hoarder (the
    largest Diff, less Alloc than any churner) came 7th and 8th of 9: cut."""
    r = run([target("spinner_hidden")], fmt="table", env={"HOTPATH_REPORT": "threads"})
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr[-500:]
    title, header, rows_ = table_after(r.stderr.decode().splitlines(), "threads - ")
    assert title.endswith(" (5/9)"), title
    names = [row[0] for row in rows_]
    assert len(names) == 5 and "spinner" in names and "hoarder" in names, names
    # still sorted by Alloc: the three largest churners first, then the two kept rows
    assert names[:3] == ["churn-6", "churn-5", "churn-4"], names
    # JSON keeps every row
    rep = run([target("spinner_hidden")]).report
    assert len(rep["threads"]["rows"]) == 9


def test_a_program_with_no_locks_and_no_io_gives_one_line_views():
    r = run(["/bin/true"], fmt="table")
    assert r.returncode == 0
    lines = r.stderr.decode().splitlines()
    for line in ("mutexes: none used", "rw_locks: none used", "io-read: none", "io-write: none"):
        assert line in lines, lines
    assert any(l.startswith("functions-cpu: 0 samples at 99 Hz") for l in lines), lines
    assert any(l.startswith("functions-alloc: 0 samples, one per ") for l in lines), lines
    # no table with only a header, no history line without points
    assert not any(l.startswith(("| Mutex ", "| RwLock ", "| Resource ", "history: ")) for l in lines), lines
    assert sum(l.startswith("+--") for l in lines) == 3, lines     # the threads table's rules


def test_locks_never_waited_on_are_one_line_and_in_json():
    """live's worker takes its mutex and rwlock alone: no wait, so no table; "remade" makes two
    locks of one name."""
    r = run([target("live"), "300", "remade"], fmt="table")
    assert r.returncode == 0, r.stderr[-300:]
    lines = r.stderr.decode().splitlines()
    assert any(re.fullmatch(r"mutexes: 2 locks, \d+ acquisitions, none waited", l) for l in lines), lines
    assert any(re.fullmatch(r"rw_locks: 1 lock, \d+ acquisitions, none waited", l) for l in lines), lines
    assert not any(l.startswith(("| Mutex ", "| RwLock ")) for l in lines), lines
    rep = run([target("live"), "300", "remade"]).report
    assert [x["name"] for x in rep["mutexes"]["rows"]] == ["lock", "lock"], rep["mutexes"]["rows"]
    assert [x["name"] for x in rep["rw_locks"]["rows"]] == ["rw"]


def test_io_rate_over_the_open_time_is_beside_the_in_call_rate():
    """A file written at once and then left open idle for half a second: the rate over its open
    time is far below the rate inside the calls."""
    script = ("import os, sys, time\n"
              "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n"
              "os.write(fd, b'x' * (1 << 20))\n"
              "time.sleep(0.5)\n"
              "os.close(fd)\n")
    with tempfile.TemporaryDirectory(prefix="hotpath-test-") as d:
        path = os.path.join(d, "idle.bin")
        r = run([sys.executable, "-c", script, path], env={"HOTPATH_REPORT": "io"})
        assert r.returncode == 0, r.stderr
        res = next(x for x in r.report["io"]["resources"] if x["name"] == path)
        w = res["write"]
        assert w["bytes"] == 1 << 20 and w["rate_bytes_per_s"] and w["wall_rate_bytes_per_s"], w
        assert w["wall_rate_bytes_per_s"] <= w["rate_bytes_per_s"], w
        assert 0.5e9 <= res["open_wall_ns"] <= 5e9, res
        assert w["wall_rate_bytes_per_s"] <= (1 << 20) / 0.5, w
        # a direction with no bytes has a wall rate of 0, not null: the file was open
        assert res["read"]["wall_rate_bytes_per_s"] == 0, res["read"]
        t = run([sys.executable, "-c", script, path], fmt="table", env={"HOTPATH_REPORT": "io"})
        title, header, rows_ = table_after(t.stderr.decode().splitlines(), "io-write - ")
        assert header[5:7] == ["Call rate", "Open rate"], header


def test_a_long_path_is_cut_keeping_its_end_and_tables_fit_the_width():
    with tempfile.TemporaryDirectory(prefix="hotpath-test-") as d:
        deep = os.path.join(d, "a-rather-long-directory-name-" * 3, "__pycache__")
        os.makedirs(deep)
        path = os.path.join(deep, "typing.cpython-311.pyc")
        r = run([target("io_known"), "file", path], fmt="table",
                env={"HOTPATH_REPORT": "io", "HOTPATH_TABLE_WIDTH": "130"})
        assert r.returncode == 0, r.stderr
        lines = r.stderr.decode().splitlines()
        table = [l for l in lines if l.startswith(("|", "+"))]
        assert table and max(len(l) for l in table) <= 130, max(table, key=len)
        cut = [l.split("|")[1].strip() for l in table if l.startswith("| \u2026")]
        assert cut and all(c.endswith(".pyc") and len(c) >= 12 for c in cut), table
        assert all(path.endswith(c[1:]) for c in cut), cut
        # JSON is never cut
        rep = run([target("io_known"), "file", path], env={"HOTPATH_REPORT": "io", "HOTPATH_TABLE_WIDTH": "130"}).report
        assert path in [x["name"] for x in rep["io"]["resources"]]
        # under hotpath-run, stderr not a terminal: 160 columns
        p = launch(["-f", "table", target("io_known"), "file", path], d)
        assert p.returncode == 0, p.stderr[-500:]
        table = [l for l in p.stderr.decode().splitlines() if l.startswith(("|", "+"))]
        assert max(len(l) for l in table) <= 160, max(table, key=len)
        assert any(l.startswith("| \u2026") and "/__pycache__/typing.cpython-311.pyc" in l for l in table), table


# ---- errors ----

BAD_FLAGS = [
    (["-i", "0"], 'hotpath-run: -i: "0" is not a whole number of milliseconds from 1 to 3600000'),
    (["-i", "abc"], 'hotpath-run: -i: "abc" is not a whole number of milliseconds from 1 to 3600000'),
    (["--interval=3600001"], 'hotpath-run: --interval: "3600001" is not a whole number of milliseconds from 1 to 3600000'),
    (["-f", "yaml"], 'hotpath-run: -f: "yaml" is not one of table, json, json-pretty, none'),
    (["--format", "yaml"], 'hotpath-run: --format: "yaml" is not one of table, json, json-pretty, none'),
    (["-l", "abc"], 'hotpath-run: -l: "abc" is not a whole number of rows (0 = all)'),
    (["--limit=-1"], 'hotpath-run: --limit: "-1" is not a whole number of rows (0 = all)'),
    (["--checkpoint", "x"], 'hotpath-run: --checkpoint: "x" is not a whole number of seconds from 0 (off) to 86400'),
    (["--checkpoint", "86401", "-o", "r.txt"],
     'hotpath-run: --checkpoint: "86401" is not a whole number of seconds from 0 (off) to 86400'),
    (["--checkpoint", "2"], "hotpath-run: --checkpoint needs -o PATH: it rewrites the report file, and stderr cannot be rewritten"),
]


@pytest.mark.parametrize("flags,line", BAD_FLAGS, ids=[" ".join(f) for f, _ in BAD_FLAGS])
def test_a_bad_flag_value_is_refused_by_the_flag_s_name(flags, line):
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(flags + ["echo", "ran"], tmp)
    assert (p.returncode, p.stdout, p.stderr.decode()) == (2, b"", line + "\n")


def config_row(var):
    """(lo, hi, expected) of a whole-number row of core/config.c."""
    with open(os.path.join(ROOT, "core", "config.c")) as f:
        text = f.read()
    m = re.search(r'\{ "%s", HP_SETTING_UINT, [^,]+, \d+, (\d+), (\d+), NULL,\s*"([^"]+)"' % var, text)
    assert m, var
    return int(m.group(1)), int(m.group(2)), m.group(3)


@pytest.mark.parametrize("flag,var", [("-i", "HOTPATH_THREADS_INTERVAL_MS"), ("-l", "HOTPATH_LIMIT"),
                                      ("--checkpoint", "HOTPATH_CHECKPOINT_S")])
def test_a_flag_takes_its_setting_s_range(flag, var):
    lo, hi, expected = config_row(var)
    with tempfile.TemporaryDirectory() as tmp:
        for value, ok in ((lo, True), (hi, True), (hi + 1, False)) + (((lo - 1, False),) if lo else ()):
            p = launch([flag, str(value), "-f", "none", "-o", os.path.join(tmp, "r.txt"), "true"], tmp)
            if ok:
                assert p.returncode == 0 and p.stderr == b"", (flag, value, p.stderr)
            else:
                assert p.returncode == 2 and p.stderr.decode().endswith(" is not %s\n" % expected), (flag, value, p.stderr)


def test_a_bad_setting_is_said_once_per_run_and_keeps_the_default():
    """Every process of the run met the same bad value and each said it."""
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["-f", "json", "sh", "-c", "true; /bin/true; ls / >/dev/null; /bin/true"], tmp,
                   env={"HOTPATH_CPU_HZ": "lots"})
    assert p.returncode == 0, p.stderr[-500:]
    err = p.stderr.decode().splitlines()
    line = ('hotpath: HOTPATH_CPU_HZ="lots" is not a whole number of samples per CPU second from 0 (off) '
            "to 1000; using 99")
    assert err.count(line) == 1, err
    doc = validate(__import__("json").loads(err[1]))
    assert len(doc["reports"]) >= 2 and all(r["functions_cpu"]["hz"] == 99 for r in doc["reports"]), doc["processes"]
    # without hotpath-run each process says it: its own
    r = run(["sh", "-c", "/bin/true; /bin/true"], env={"HOTPATH_CPU_HZ": "lots"})
    assert r.stderr.decode().count(line) >= 2, r.stderr


def test_unknown_names_in_a_list_are_named_and_the_known_ones_kept():
    r = run([target("alloc_known")], env={"HOTPATH_REPORT": "threads,bogus"})
    assert r.stderr.decode().splitlines() == [
        'hotpath: HOTPATH_REPORT: no section "bogus" (sections: all, threads, mutexes, rw_locks, io, '
        "functions_cpu, functions_alloc); using threads"], r.stderr
    assert "threads" in r.report and "mutexes" not in r.report and "io" not in r.report


def test_a_missing_program_is_named_with_status_127():
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["./hotpath-no-such-program"], tmp)
        assert (p.returncode, p.stderr) == (127, b"hotpath-run: ./hotpath-no-such-program: No such file or directory\n")
        assert not [n for n in os.listdir(tmp) if n.startswith("hotpath-run-")]


def unprofiled(tmp, program, args=()):
    """hotpath-run's output for program, in table and JSON formats."""
    table = launch([program, *args], tmp)
    json_ = launch(["-f", "json", program, *args], tmp)
    return table, json_


@pytest.mark.skipif(os.geteuid() != 0, reason="a set-user-ID file of another user needs root to make")
def test_a_set_user_id_program_runs_unprofiled_with_one_line_and_no_report():
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "suid-true")
        shutil.copy("/bin/true", prog)
        os.chown(prog, 65534, -1)
        os.chmod(prog, 0o4755)
        table, json_ = unprofiled(tmp, prog)
        line = f"hotpath-run: {prog} is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it, so it runs unprofiled\n"
        assert (table.returncode, table.stderr.decode()) == (0, line)
        # JSON: the run document still, with no report
        first, doc = json_.stderr.decode().split("\n", 1)
        assert first + "\n" == line and validate(__import__("json").loads(doc))["reports"] == []
        # a set-user-ID file of one's own changes no credentials: it is profiled
        os.chown(prog, os.geteuid(), -1)
        os.chmod(prog, 0o4755)
        p = launch([prog], tmp)
        assert "runs unprofiled" not in p.stderr.decode() and "[hotpath] run: " in p.stderr.decode(), p.stderr


def test_a_static_program_runs_unprofiled_with_one_line_and_no_report():
    cc = shutil.which("cc")
    if not cc or not os.path.exists("/usr/lib/x86_64-linux-gnu/libc.a") and not os.path.exists("/usr/lib/libc.a"):
        pytest.skip("no static C library to link with")
    with tempfile.TemporaryDirectory() as tmp:
        src, prog = os.path.join(tmp, "s.c"), os.path.join(tmp, "static-3")
        with open(src, "w") as f:
            f.write("int main(void) { return 3; }\n")
        subprocess.run([cc, "-static", "-o", prog, src], check=True)
        table, _ = unprofiled(tmp, prog)
        line = f"hotpath-run: {prog} is statically linked: nothing can be preloaded into it, so it runs unprofiled\n"
        assert (table.returncode, table.stderr.decode()) == (3, line)
        assert not [n for n in os.listdir(tmp) if n.startswith("hotpath-run-")]
        # a script run by it, named in its first line or found on PATH through env (which runs
        # profiled on its way to it): the same line first
        for first in (f"#!{prog} -x", "#! /usr/bin/env static-3"):
            script = os.path.join(tmp, "script")
            with open(script, "w") as f:
                f.write(first + "\n")
            os.chmod(script, 0o755)
            p = launch([script], tmp, env={"PATH": tmp + ":" + PATH})
            err = p.stderr.decode()
            assert p.returncode == 3 and (err == line if "env" not in first else err.startswith(line)), (first, err)
