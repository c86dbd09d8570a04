"""hotpath-run gathers a run into one report (issue 26): every profiled process image leaves its
report in the launcher's run directory (HOTPATH_RUN_DIR), and the launcher prints one processes
table and the full reports of the images that matter, or one hotpath_run JSON document. Each test
runs with TMPDIR in a directory of its own, so that the run directory can be found (and found
gone)."""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from harness import RUN, clean_env, validate

# python3, env, bash and sh as found first on PATH; the interpreter running the tests comes first,
# so that python3 is a program, not a wrapper script that forks helpers of its own
PATH = os.path.dirname(sys.executable) + ":" + os.environ.get("PATH", "/usr/bin:/bin")
BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"


def launch(args, tmp, env=None, timeout=120, **kw):
    extra = {"TMPDIR": tmp, "PATH": PATH, **(env or {})}
    return subprocess.run([RUN] + args, env=clean_env(extra, preload=False), capture_output=True,
                          timeout=timeout, **kw)


def run_dirs(tmp):
    return glob.glob(os.path.join(tmp, "hotpath-run-*"))


def processes_table(err):
    """The processes table's rows as lists of cells (stripped), from the text report."""
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("processes - Every process image"))
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith(("|", "+")):
            break
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    assert rows[0][:4] == ["PID", "PPID", "Image", "Command"], rows[0]
    return rows[1:]


def run_document(err):
    """The hotpath_run document: the first line of the output (compact JSON), validated."""
    doc = json.loads(err.split("\n", 1)[0])
    assert doc["type"] == "hotpath_run", doc["type"]
    return validate(doc)


def test_a_shim_chain_gives_one_report_and_it_is_pythons():
    chain = f"exec env bash -c \"exec python3 -c '{BURN}'\""
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["sh", "-c", chain], tmp)
        err = p.stderr.decode()
        assert p.returncode == 0, err
        assert err.count("[hotpath] run: ") == 1 and err.startswith("[hotpath] run: sh -c exec env bash"), err
        assert err.count("\nthreads - ") == 1, err
        # the one full report is python3's: its header line names it
        shown = [line for line in err.splitlines() if line.startswith("[hotpath] pid ")]
        assert len(shown) == 1 and "| python3 -c " in shown[0], shown
        rows = processes_table(err)
        assert len({r[0] for r in rows}) == 1, rows                  # one pid, four images
        assert [r[2] for r in rows] == ["0", "1", "2", "3"], rows
        assert [r[3].split()[0] for r in rows] == ["sh", "env", "bash", "python3"], rows
        assert [r[9] for r in rows] == ["exec env", "exec bash", "exec python3", "exit 0"], rows
        assert run_dirs(tmp) == []


C_FILES = ("a", "b", "c", "d")


def small_project(d):
    for name in C_FILES:
        with open(os.path.join(d, name + ".c"), "w") as f:
            f.write(f"int {name}(int x) {{ return x * 3 + {len(name)}; }}\n")
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write("int a(int); int b(int); int c(int); int d(int);\n"
                "int main(void) { return (a(1) + b(2) + c(3) + d(4)) & 0; }\n")
    with open(os.path.join(d, "Makefile"), "w") as f:
        objs = " ".join(n + ".o" for n in C_FILES)
        f.write(f"prog: main.o {objs}\n\tcc -o $@ $^\n%.o: %.c\n\tcc -O1 -c $< -o $@\n")


def test_make_of_a_small_c_project_is_one_report_with_every_compiler_process():
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as src:
        small_project(src)
        p = launch(["-f", "json", "make", "-s", "-j2", "-C", src], tmp)
        err = p.stderr.decode()
        assert p.returncode == 0, err
        doc = run_document(err)
        assert err.count("\n") == 1, err                          # the document, nothing else
        assert doc["argv"] == ["make", "-s", "-j2", "-C", src] and doc["exit"] == {"status": 0, "signal": None}
        commands = [os.path.basename(r["command"]) for r in doc["processes"]]
        assert commands.count("cc1") == len(C_FILES) + 1, commands            # and main.c
        assert commands.count("as") == len(C_FILES) + 1 and "ld" in commands, commands
        assert commands[0] == "make" and commands.count("cc") == len(C_FILES) + 2, commands
        assert len(doc["processes"]) == len(doc["reports"])
        assert [(r["pid"], r["image"]) for r in doc["processes"]] == \
               [(r["pid"], r["image"]) for r in doc["reports"]]
        # the table format: one report, every process a row
        subprocess.run(["make", "-s", "-C", src, "clean"], capture_output=True)
        for o in glob.glob(os.path.join(src, "*.o")):
            os.unlink(o)
        p = launch(["make", "-s", "-j2", "-C", src], tmp)
        err = p.stderr.decode()
        assert p.returncode == 0 and err.count("[hotpath] run: ") == 1, err
        rows = processes_table(err)
        assert len([r for r in rows if r[3].split()[0].endswith("/cc1")]) == len(C_FILES) + 1, rows
        assert run_dirs(tmp) == []


def in_run(run_dir, cmdline):
    """The pids of the processes running cmdline (NUL-separated) with run_dir in their
    environment."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read() != cmdline:
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"HOTPATH_RUN_DIR={run_dir}".encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_launcher_killed_with_sigkill_leaves_the_run_dir_and_its_files():
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.Popen([RUN, "bash", "-c", "sleep 5 & echo hi"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=clean_env({"TMPDIR": tmp, "PATH": PATH}, preload=False))
        assert p.stdout.readline() == b"hi\n"
        time.sleep(1)
        p.kill()
        p.wait(timeout=30)              # not communicate(): the sleep holds the pipes open
        p.stdout.close()
        p.stderr.close()
        (run_dir,) = run_dirs(tmp)
        assert os.stat(run_dir).st_mode & 0o777 == 0o700
        # the sleep, still running (its parent gone), ends by SIGTERM and writes its file then
        (sleep_pid,) = in_run(run_dir, b"sleep\x005\x00")
        os.kill(sleep_pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            reports = {}
            for name in glob.glob(os.path.join(run_dir, "*.json")):
                with open(name) as f:
                    reports[os.path.basename(name)] = validate(json.load(f))
            bash = [r for r in reports.values() if r["argv"][0] == "bash"]
            sleep = [r for r in reports.values() if r["argv"][0] == "sleep"]
            if bash and sleep:
                break
            time.sleep(0.1)
        assert bash and bash[0]["ended"] == {"how": "exit", "status": 0, "signal": None, "exec": None}, reports
        assert sleep and sleep[0]["ended"]["how"] == "signal" and sleep[0]["ended"]["signal"] == "SIGTERM", reports
        assert sleep[0]["pid"] != bash[0]["pid"]


def test_sigint_to_the_launcher_ends_python_as_bare_and_the_report_is_printed():
    prog = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"]
    with tempfile.TemporaryDirectory() as tmp:
        env = clean_env({"TMPDIR": tmp, "PATH": PATH}, preload=False)
        outcome = []
        for cmd in (prog, [RUN] + prog):
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stdout.readline()
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=30)
            outcome.append((p.returncode, err.decode()))
        (bare_status, _), (status, err) = outcome
        assert status == bare_status and err.count("KeyboardInterrupt") == 1, err
        assert err.count("[hotpath] run: ") == 1 and err.count("\nthreads - ") == 1, err
        (header,) = [line for line in err.splitlines() if line.startswith("[hotpath] run: ")]
        assert header.endswith("| SIGINT" if bare_status == -signal.SIGINT else f"| exit {bare_status}"), header
        assert run_dirs(tmp) == []


def test_exit_statuses_and_death_signals_are_the_programs():
    with tempfile.TemporaryDirectory() as tmp:
        for script, status, header_end, ended in (("exit 7", 7, "| exit 7", "exit 7"),
                                                  ("kill -TERM $$", -15, "| SIGTERM", "SIGTERM"),
                                                  ("kill -SEGV $$", -11, "| SIGSEGV", "SIGSEGV"),
                                                  ("true", 0, "| exit 0", "exit 0")):
            p = launch(["sh", "-c", script], tmp, cwd=tmp)
            err = p.stderr.decode()
            assert p.returncode == status, (script, err)
            (header,) = [line for line in err.splitlines() if line.startswith("[hotpath] run: ")]
            assert header.endswith(header_end), (script, header)
            (row,) = processes_table(err)
            assert row[9] == ended, (script, row)
        assert run_dirs(tmp) == [] and not glob.glob(os.path.join(tmp, "core*"))


def test_json_run_document_counts_every_image_and_keep_run_dir_keeps_the_files():
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["-f", "json", "--keep-run-dir", "sh", "-c", "/bin/true; exec /bin/true"], tmp)
        err = p.stderr.decode()
        assert p.returncode == 0, err
        doc = run_document(err)
        (run_dir,) = run_dirs(tmp)
        assert err.splitlines()[1:] == [f"hotpath-run: per-process reports kept in {run_dir}"], err
        files = sorted(os.listdir(run_dir))
        assert len(doc["processes"]) == len(files) == len(doc["reports"]), (files, doc["processes"])
        assert all(f.endswith(".json") for f in files), files       # json: no text reports
        assert sorted(f"{r['pid']}.{r['image']}.json" for r in doc["processes"]) == files
        assert [r["command"] for r in doc["processes"]] == [r["command"] for r in doc["reports"]]
        sh = doc["processes"][0]
        assert sh["argv"][0] == "sh" and sh["ended"]["how"] == "exec", sh
        shown = [r for r in doc["processes"] if r["shown"]]    # by default: the most CPU
        assert len(shown) == 1 and shown[0]["ended"]["how"] == "exit", doc["processes"]
        p = launch(["-f", "json-pretty", "true"], tmp)
        doc = validate(json.loads(p.stderr))
        assert [r["argv"] for r in doc["processes"]] == [["true"]] and doc["processes"][0]["shown"]


def test_output_path_gets_the_run_report_and_stderr_stays_empty():
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["-o", "out.txt", "sh", "-c", "exec true"], tmp, cwd=tmp)
        assert p.returncode == 0 and p.stderr == b"", p.stderr
        out = os.path.join(tmp, "out.txt")
        assert os.stat(out).st_mode & 0o777 == 0o600
        text = open(out).read()
        assert text.startswith("[hotpath] run: sh -c exec true | 1 process, 2 images | ") and \
               text.count("\nthreads - ") == 1, text
        assert [r[9] for r in processes_table(text)] == ["exec true", "exit 0"]
        # a symbolic link is not followed: the report stays on the launcher's side of it
        os.unlink(out)
        os.symlink(os.path.join(tmp, "elsewhere"), out)
        p = launch(["-o", "out.txt", "true"], tmp, cwd=tmp)
        assert p.returncode == 0 and not os.path.exists(os.path.join(tmp, "elsewhere"))
        err = p.stderr.decode()
        assert "out.txt" in err and "per-process reports kept in" in err, err


def test_output_path_with_pid_gives_a_file_per_process_as_before():
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as d:
        p = launch(["-f", "json", "-o", os.path.join(d, "r-%p.json"), "sh", "-c", "/bin/true; /bin/true"], tmp)
        assert p.returncode == 0 and p.stderr == b"", p.stderr
        reports = [validate(json.load(open(os.path.join(d, n)))) for n in sorted(os.listdir(d))]
        assert {r["type"] for r in reports} == {"hotpath_report"} and len(reports) >= 3, reports
        assert run_dirs(tmp) == []
        p = launch(["-f", "none", "sh", "-c", "/bin/true"], tmp)
        assert p.returncode == 0 and p.stderr == b"" and run_dirs(tmp) == []


def test_all_and_only_select_the_full_reports():
    # env: an image that exec'd quickly; the shell's command line does not name python
    script, names = 'env $PY -c "$BURN"; /bin/true; /bin/true', {"PY": "python3", "BURN": BURN}
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["-f", "json", "--all", "sh", "-c", script], tmp, env=names)
        doc = run_document(p.stderr.decode())
        quick = [r for r in doc["processes"] if r["ended"]["how"] == "exec" and r["wall_ns"] < 100_000_000]
        assert quick and all(r["shown"] != (r in quick) for r in doc["processes"]), doc["processes"]
        p = launch(["--all", "sh", "-c", script], tmp, env=names)
        err = p.stderr.decode()
        assert err.count("\nthreads - ") == len(doc["processes"]) - len(quick), err
        for only in ("python", "*python3 -c*"):
            p = launch(["--only", only, "sh", "-c", script], tmp, env=names)
            err = p.stderr.decode()
            shown = [line for line in err.splitlines() if line.startswith("[hotpath] pid ")]
            assert len(shown) == 1 and "| python3 -c " in shown[0], (only, shown)
        p = launch(["-f", "json", "--only", "/bin/tru?", "sh", "-c", script], tmp, env=names)
        doc = run_document(p.stderr.decode())
        assert [r["argv"] for r in doc["processes"] if r["shown"]] == [["/bin/true"]] * 2, doc["processes"]
        # the default: the image with the most CPU only (python3's: none lived 1 s)
        p = launch(["-f", "json", "sh", "-c", script], tmp, env=names)
        doc = run_document(p.stderr.decode())
        assert [r["argv"][0] for r in doc["processes"] if r["shown"]] == ["python3"], doc["processes"]
        assert run_dirs(tmp) == []


def test_only_an_image_that_may_be_shown_writes_its_text_report():
    # the run's most CPU so far is shared: after python's burn, the lighter images leave no text
    # (the launcher would not read it); before it, they may; the shown one always has its own
    for script, lighter_text in (('$PY -c "$BURN"; /bin/true; /bin/true', False),
                                 ('/bin/true; $PY -c "$BURN"', None)):
        with tempfile.TemporaryDirectory() as tmp:
            p = launch(["--keep-run-dir", "sh", "-c", script], tmp, env={"PY": "python3", "BURN": BURN})
            err = p.stderr.decode()
            assert p.returncode == 0 and "left no text report" not in err, err
            shown = [line for line in err.splitlines() if line.startswith("[hotpath] pid ")]
            assert len(shown) == 1 and "| python3 -c " in shown[0], shown
            (run_dir,) = run_dirs(tmp)
            texts = {}
            for name in os.listdir(run_dir):
                if name.endswith(".json"):
                    report = json.load(open(os.path.join(run_dir, name)))
                    texts[report["command"]] = texts.get(report["command"], []) + \
                        [os.path.exists(os.path.join(run_dir, name[:-5] + ".txt"))]
            python = [k for k in texts if "python" in k]
            assert len(python) == 1 and texts[python[0]] == [True], texts
            if lighter_text is False:
                assert texts["/bin/true"] == [False, False], texts


def test_a_report_that_does_not_parse_is_a_row_of_unknowns_and_a_note():
    with tempfile.TemporaryDirectory() as tmp:
        p = launch(["sh", "-c", 'printf "{bad" > "$HOTPATH_RUN_DIR/99999999.0.json"'], tmp)
        err = p.stderr.decode()
        assert p.returncode == 0, err
        rows = processes_table(err)
        bad = [r for r in rows if r[0] == "99999999"]
        assert bad and bad[0][1:] == ["?", "0"] + ["?"] * 7, rows
        assert err.count("note: 99999999.0.json is not a readable report: ") == 1, err
        assert err.count("\nthreads - ") == 1, err
        p = launch(["-f", "json", "sh", "-c", 'printf "[]" > "$HOTPATH_RUN_DIR/99999999.0.json"'], tmp)
        doc = run_document(p.stderr.decode())
        # its row has nulls, and there is no report of it
        (bad,) = [r for r in doc["processes"] if r["pid"] == 99999999]
        assert bad["command"] is None and bad["ended"] is None and not bad["shown"], bad
        assert [r["pid"] for r in doc["reports"]] == [r["pid"] for r in doc["processes"] if r is not bad]
        assert run_dirs(tmp) == []


def test_without_a_run_dir_each_process_reports_on_stderr_as_before():
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing")
        p = launch(["sh", "-c", "/bin/true; exit 3"], missing)
        err = p.stderr.decode()
        assert p.returncode == 3, err
        assert err.startswith("hotpath-run: no run directory (No such file or directory): each process "
                              "reports on its own\n"), err
        assert "[hotpath] run: " not in err and err.count("\nthreads - ") == 2, err
