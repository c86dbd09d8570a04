"""The report itself: the reference table layout, row limits, formats, sections, settings that do
not parse, and the output file (mode 0600, never through a symlink)."""
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
import unicodedata

from harness import clean_env, row, run, target, validate

HEADER = ("| Thread | Status | CPU% | Max% | CPU User | CPU Sys | CPU Total | Alloc | Dealloc | Diff |")
BYTES = r"-?\d+ B|-?\d+\.\d (KB|MB|GB|TB)"


def display_width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith(("+", "|"))]


def test_reference_layout_of_the_demo():
    r = run([target("demo")], fmt="table", env={"HOTPATH_REPORT": "threads"})   # the threads view's layout
    assert r.returncode == 0
    text = r.stderr.decode("utf-8")
    lines = text.splitlines()
    assert re.fullmatch(r"\[hotpath\] pid \d+ \| \S*demo \| \d+\.\d\d (s|ms) \| threads", lines[0]), lines[0]
    title = next(line for line in lines if line.startswith("threads - "))
    assert re.fullmatch(r"threads - Thread CPU and memory statistics\. \(RSS: (%s), Alloc: (%s), "
                        r"Dealloc: (%s), Diff: (%s)\) \(5/7\)" % (BYTES, BYTES, BYTES, BYTES), title), title
    table = table_lines(text)
    assert re.sub(r" +", " ", table[1]) == HEADER, table[1]
    assert len({display_width(line) for line in table}) == 1, "ragged table"
    assert all(line.startswith("+-") for line in table[::2])
    assert len(table) == 3 + 2 * 5       # rule, header, rule, then 5 rows each with its rule
    worker = next(line for line in table if line.startswith("| worker-1 "))
    cells = [c.strip() for c in worker.strip("|").split("|")]
    assert cells[1] == "Exited"
    assert float(cells[3].rstrip("%")) >= 90, cells
    assert re.fullmatch(r"\d+\.\d{3}s", cells[6]), cells
    assert re.fullmatch(BYTES, cells[7]) and re.fullmatch(BYTES, cells[9]), cells
    sleeping = [line for line in table if "| Sleeping |" in line]
    assert sleeping, "the demo leaves one thread asleep"
    assert re.search(r"\[hotpath\] profiler cost: \d+\.\d{3}s CPU, (%s) memory" % BYTES, lines[-1]), lines[-1]


def test_rows_sorted_by_alloc_then_max():
    r = run([target("demo")])
    got = [(t["alloc_bytes"], t["max_cpu_percent"] or -1) for t in r.report["threads"]["rows"]]
    assert got == sorted(got, reverse=True), got


def test_limits():
    r = run([target("many_threads"), "12"], fmt="table", env={"HOTPATH_THREADS_LIMIT": "3", "HOTPATH_REPORT": "threads"})
    text = r.stderr.decode()
    assert "(3/13)" in text and len(table_lines(text)) == 3 + 2 * 3
    r = run([target("many_threads"), "12"], fmt="table", env={"HOTPATH_LIMIT": "0", "HOTPATH_REPORT": "threads"})
    text = r.stderr.decode()
    assert "/13)" not in text and len(table_lines(text)) == 3 + 2 * 13
    r = run([target("many_threads"), "12"], fmt="table", env={"HOTPATH_LIMIT": "4", "HOTPATH_THREADS_LIMIT": "6"})
    assert "(6/13)" in r.stderr.decode()
    # JSON always has every row
    r = run([target("many_threads"), "12"], env={"HOTPATH_THREADS_LIMIT": "2"})
    assert len(r.report["threads"]["rows"]) == 13


def test_json_pretty_and_none():
    r = run([target("alloc_known")], fmt="json-pretty")
    assert r.report["type"] == "hotpath_report"
    r = run([target("alloc_known")], fmt="none")
    assert r.stderr == b"" and r.reports == {}


def test_report_selection():
    r = run([target("alloc_known")], env={"HOTPATH_REPORT": "all,-threads"})
    assert "threads" not in r.report
    r = run([target("alloc_known")], fmt="table", env={"HOTPATH_REPORT": "threads,-threads"})
    assert "threads -" not in r.stderr.decode() and "no sections" in r.stderr.decode()
    r = run([target("alloc_known")], env={"HOTPATH_REPORT": "threads"})
    assert "threads" in r.report


BAD_SETTINGS = {
    "HOTPATH_THREADS_INTERVAL_MS": ("abc", "250"),
    "HOTPATH_THREADS_LIMIT": ("-3", "5"),
    "HOTPATH_LIMIT": ("lots", "default"),
    "HOTPATH_OUTPUT_FORMAT": ("xml", "table"),
    # a malformed list keeps every section (an unknown name is named and the others kept:
    # test_defaults.py)
    "HOTPATH_REPORT": ("threads,,io", "all"),
}


def test_each_bad_setting_gets_one_line_and_the_run_completes():
    for var, (value, default) in BAD_SETTINGS.items():
        # a bad format falls back to the table on stderr; the others keep the JSON file
        fmt = "table" if var == "HOTPATH_OUTPUT_FORMAT" else "json"
        r = run([target("alloc_known")], fmt=fmt, env={var: value})
        assert r.returncode == 0, (var, r.stderr)
        warnings = [line for line in r.stderr.decode().splitlines() if line.startswith("hotpath:")]
        assert len(warnings) == 1, (var, warnings)
        assert var in warnings[0] and value in warnings[0] and default in warnings[0], warnings[0]
        if var == "HOTPATH_OUTPUT_FORMAT":
            assert "threads - Thread CPU" in r.stderr.decode()
        else:
            assert "threads" in r.report


def test_output_file_mode_and_pid_expansion():
    with tempfile.TemporaryDirectory() as d:
        r = run([target("alloc_known")], fmt="table", env={"HOTPATH_OUTPUT_PATH": os.path.join(d, "r-%p.txt")})
        assert r.returncode == 0 and r.stderr == b""
        (name,) = os.listdir(d)
        assert re.fullmatch(r"r-\d+\.txt", name)
        path = os.path.join(d, name)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert "threads - Thread CPU" in open(path).read()


def test_output_path_never_follows_a_symlink():
    with tempfile.TemporaryDirectory() as d:
        victim = os.path.join(d, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        link = os.path.join(d, "report.json")
        os.symlink(victim, link)
        r = run([target("alloc_known")], fmt="table", env={"HOTPATH_OUTPUT_PATH": link})
        assert r.returncode == 0
        assert open(victim).read() == "precious\n"
        err = r.stderr.decode()
        assert "cannot write the report to" in err and "threads - Thread CPU" in err


def test_unwritable_output_path_falls_back_to_stderr():
    r = run([target("alloc_known")], fmt="json", env={"HOTPATH_OUTPUT_PATH": "/nonexistent/dir/x.json"})
    assert r.returncode == 0
    lines = r.stderr.decode().splitlines()
    assert lines[0].startswith("hotpath: cannot write the report to /nonexistent/dir/x.json")
    validate(json.loads(lines[1]))


def test_a_worker_that_gives_up_root_still_writes_its_report_where_asked():
    """nginx's and memcached's workers leave root for nobody: they could no longer create their
    report in the private directory asked for, and wrote it to stderr, which a daemon has sent to
    /dev/null. The files are opened as the credentials change, while they still may be."""
    import subprocess
    assert os.geteuid() == 0, "this test needs root (CI runs as root)"
    d = tempfile.mkdtemp()                                  # 0700, root's
    try:
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "%p.json"),
                         "HOTPATH_HTML_PATH": os.path.join(d, "%p.html")})
        p = subprocess.run([target("exit_paths"), "drop"], env=env, capture_output=True, timeout=60)
        assert p.returncode == 0, (p.returncode, p.stderr)
        worker, uid = re.search(rb"worker (\d+) uid (\d+)", p.stdout).groups()
        assert int(uid) == 65534
        assert b"cannot write" not in p.stderr, p.stderr
        with open(os.path.join(d, worker.decode() + ".json")) as f:
            report = validate(json.load(f))
        assert report["pid"] == int(worker) and row(report, "main")["alloc_bytes"] >= 123456
        assert os.path.getsize(os.path.join(d, worker.decode() + ".html")) > 1000
        assert os.stat(os.path.join(d, worker.decode() + ".json")).st_mode & 0o777 == 0o600
    finally:
        import shutil
        shutil.rmtree(d, ignore_errors=True)


def test_report_survives_a_closed_stderr():
    """coreutils close stderr in an atexit handler; the report still reaches the original stderr."""
    import subprocess
    p = subprocess.run(["ls", "/"], env=clean_env({"HOTPATH_OUTPUT_FORMAT": "table"}), capture_output=True)
    assert p.returncode == 0
    assert b"threads - Thread CPU and memory statistics." in p.stderr


def test_json_identity():
    r = run([target("exit_paths"), "return"])
    report = r.report
    assert report["command"] == target("exit_paths")
    assert report["argv"] == [target("exit_paths"), "return"]
    assert report["elapsed_ns"] > 0
    assert row(report, "main")["os_tid"] == report["pid"]


def test_profiler_memory_counts_what_is_resident():
    # The page-backed tables (stacks of the CPU profile and of allocation sites, sampled blocks,
    # the registry) reserve about 9 MB of address space between them; a small program touches
    # little of it, and the figure says what is resident, not what is reserved.
    r = run([target("alloc_sites"), "shares", "1000"])
    assert r.returncode == 0, r.stderr
    memory = r.report["profiler"]["memory_bytes"]
    assert 64 * 1024 < memory < 4 * 2**20, memory


def test_text_header_shows_the_command_line_on_one_line():
    """The header named only argv[0], so git's helpers (all /usr/lib/git-core/git) and a shell's
    commands read alike (found by a sweep). It now has the arguments, quoted where they hold a
    space, control characters and bytes that are not UTF-8 as '?', cut past 72 bytes."""
    r = run(["/bin/echo", "one", "two\nthree"], fmt="table")
    header = [line for line in r.stderr.decode().splitlines() if line.startswith("[hotpath] pid")]
    assert len(header) == 1 and " | /bin/echo one two?three | " in header[0], header
    r = run(["/bin/echo", "x" * 100], fmt="table")
    header = [line for line in r.stderr.decode().splitlines() if line.startswith("[hotpath] pid")]
    assert " | /bin/echo " + "x" * 72 + "… | " in header[0], header
    # an argument with a space, an empty one, bytes that are not UTF-8 (raw before, found by a
    # review), and a character that is
    r = run(["/bin/echo", "a b", "", b"\xff\xfe", "é"], fmt="table")
    line = next(x for x in r.stderr.splitlines() if x.startswith(b"[hotpath] pid"))
    assert b" | /bin/echo 'a b' '' ?? \xc3\xa9 | " in line, line


def test_report_is_whole_on_a_nonblocking_stderr():
    """A program that made its stderr non-blocking (the flag is shared with the profiler's copy)
    got its report cut at 64 KB, silently, once the reader fell behind: a JSON report that did
    not parse (found by a sweep). The report waits for room as a blocking write would."""
    with tempfile.TemporaryDirectory() as d:
        script = ("import os, sys\n"
                  "for i in range(2000):\n    open(os.path.join(sys.argv[1], 'f%d' % i), 'w').close()\n"
                  "os.set_blocking(2, False)\n")
        p = subprocess.Popen([sys.executable, "-c", script, d], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=clean_env({"HOTPATH_OUTPUT_FORMAT": "json"}))
        time.sleep(1.0)                      # the reader falls behind: the pipe fills up
        err = p.stderr.read()
        p.wait(timeout=60)
        assert p.returncode == 0, err[-300:]
        assert len(err) > 65536, len(err)
        report = validate(json.loads(err.decode("utf-8")))
        assert sum(1 for r in report["io"]["resources"] if r["name"].startswith(d)) == 2000


def test_title_is_what_the_program_rewrote_over_its_argv():
    r = run([target("title_rewrite"), "--flag"])
    assert r.returncode == 0, r.stderr
    assert r.report["title"] == "worker: idle --flag", r.report["title"]
    assert r.report["command"] == target("title_rewrite")
    assert r.report["argv"] == [target("title_rewrite"), "--flag"]
    text = run([target("title_rewrite")], fmt="table", env={"HOTPATH_REPORT": "threads"})
    first = text.stderr.decode().splitlines()[0]
    assert re.match(r"\[hotpath\] pid \d+ \| worker: idle \| ", first), first


def test_title_written_over_the_arguments_and_environment_is_what_proc_shows():
    """nginx and postgres write titles longer than their arguments, on over the environment: the
    kernel then reads a string from the start; the report's title (read from the process's own
    memory) is the same."""
    r = run([target("title_rewrite"), "--long", "x"])
    assert r.returncode == 0, r.stderr
    shown = r.stdout.decode().rstrip("\0")
    assert shown.startswith("postgres: checkpointer, a title longer"), shown
    assert r.report["title"] == shown, (r.report["title"], shown)


def test_title_of_a_program_that_keeps_its_argv_is_its_argv():
    r = run([target("demo"), "a b", ""])
    assert r.report["title"] == target("demo") + " a b ", r.report["title"]


def test_title_of_a_command_line_longer_than_a_page_is_whole():
    """The title is read into a page on the stack first (a report of a process that lived
    milliseconds should not zero 64 KB for it), then into 64 KB for a longer command line: a
    compiler's, with its hundred -I flags."""
    args = ["-I/usr/include/some/long/path/%04d" % i for i in range(300)]   # about 11 KB
    r = run([target("demo")] + args)
    assert r.report["title"] == " ".join([target("demo")] + args), len(r.report["title"])
