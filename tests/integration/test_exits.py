"""Every way a process ends gets its report, and ends exactly as it would without the profiler:
same exit status, same signal, same output; the program's own signal handlers win."""
import os
import shutil
import tempfile
import signal
import subprocess
import sys
import time

from harness import LIB, bare, clean_env, row, run, target

MARKER = 100000


def check_mode(mode, status):
    plain = bare([target("exit_paths"), mode])
    r = run([target("exit_paths"), mode])
    assert plain.returncode == status, (mode, plain.returncode)
    assert r.returncode == status, (mode, r.returncode, r.stderr)
    assert r.stdout == plain.stdout, (r.stdout, plain.stdout)
    main = row(r.report, "main")
    assert main["alloc_bytes"] >= MARKER, main
    return r


def test_return_from_main():
    check_mode("return", 2)


def test_exit():
    check_mode("exit", 4)


def test_fork_handlers_that_make_threads():
    # the registry's lock was held across the whole of fork(), so a handler that made a thread
    # (or waited for a thread that made one) hung for good
    expected = bare([target("fork_handlers")], timeout=30)
    r = run([target("fork_handlers")], timeout=30)
    assert r.returncode == 0 == expected.returncode, (r.returncode, r.stderr[-300:])
    assert sorted(r.stdout.splitlines()) == sorted(expected.stdout.splitlines()), r.stdout
    assert b"child handler: 0" in r.stdout and b"child status 0, worker 0" in r.stdout, r.stdout
    assert len(r.reports) == 2, r.reports.keys()


def test_fork_children_while_other_threads_take_stacks():
    """A fork landing while another thread is inside libunwind left libunwind's lock held in the
    child, whose next sampled allocation waited forever. (This program shows it only now and
    then; a helper's fork-heavy program hung 3 runs in 5.)"""
    r = run([target("exit_paths"), "forks"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "4096"}, fmt="none",
            timeout=60)
    assert r.returncode == 0 and r.stdout.endswith(b"forks 100 ok\n"), (r.stdout, r.stderr)


def fork_in_loader(mode, env=None):
    cmd = [target("fork_in_loader"), mode]
    expected = bare(cmd, timeout=30)
    r = run(cmd, timeout=60, env=env)
    assert r.returncode == 0 == expected.returncode and r.stdout == expected.stdout, (r.stdout, r.stderr[-300:])
    took = float(r.stderr.decode().split("took ")[1].split()[0])
    assert took < 20, took         # waiting out a lock would take 60 s, or for ever
    return r


def test_a_fork_while_another_thread_is_inside_dl_iterate_phdr():
    """glibc's fork leaves dl_iterate_phdr's lock held in the child when another thread was inside
    it: the child's first stack (libunwind walks the modules) waited forever. The profiler calls
    dl_iterate_phdr often, so this was a hang the program alone would not have had."""
    r = fork_in_loader("walker")
    assert r.stdout == b"walker: 1 of 1 children exited 7\n", r.stdout
    assert len(r.reports) == 2, r.reports.keys()
    names = sorted(m["name"] for rep in r.reports.values() for m in rep["mutexes"]["rows"])
    assert len(names) == 1 and names[0].startswith("child_lock ← main"), names


def test_a_fork_inside_a_dl_iterate_phdr_callback():
    """The child holds the lock under the parent's thread id: its unlock failed (EPERM inside
    glibc), and the child's report, made by the profiler's thread, waited for the lock held by
    the thread that asked for it."""
    r = fork_in_loader("callback")
    assert r.stdout == b"callback: 1 of 1 children exited 7\n", r.stdout
    assert len(r.reports) == 2, r.reports.keys()


def test_forks_while_other_threads_dlopen_and_dlclose():
    """A lock held by a thread inside dlopen or dlclose guards lists that may be halfway: freeing
    it made children abort in ld.so's own assertions; the child takes no stacks instead. With the
    CPU profile on: a sample that interrupted malloc waited for the loader's lock held by a
    dlclose that waited for malloc's (tests/integration/test_stress.py runs this 60 times)."""
    r = fork_in_loader("dlopen")
    assert r.stdout == b"dlopen: 200 of 200 children exited 7\n", (r.stdout, r.stderr[-500:])
    assert len(r.reports) == 201, len(r.reports)


def start_faults(preload):
    """Minor page faults of a process that does nothing (/bin/true): the least of five runs."""
    env = clean_env({"HOTPATH_OUTPUT_FORMAT": "none"}, preload)
    least = None
    for _ in range(5):
        p = subprocess.Popen(["true"], env=env)
        _, _, ru = os.wait4(p.pid, 0)
        least = ru.ru_minflt if least is None else min(least, ru.ru_minflt)
    return least


def test_a_process_start_and_a_fork_child_touch_few_pages():
    # On a VM each page a process touches costs it 15-30 us (a fault, a zeroed or copied page), so
    # the pages the profiler touches are most of what every process start and fork child costs
    # (shells, make and test suites make thousands). Once a start added 192 faults (libunwind's
    # table of the main thread, 64) and a fork child 100 (tables zeroed page by page).
    added = start_faults(True) - start_faults(False)
    assert 0 < added <= 150, added
    children = {}
    for preload in (False, True):
        r = run([target("exit_paths"), "fork_exit"], fmt="none", preload=preload)
        assert r.returncode == 0, r.stderr
        children[preload] = int(r.stdout.split(b"child faults ")[1])
    added = children[True] - children[False]
    assert 0 < added <= 80, children


def test_the_profiler_threads_start_only_in_a_process_that_lasts():
    # a thread costs a start about 1.3 ms of CPU here, and nobody can reach the server of a
    # process that lives for milliseconds (a compiler's pass, a shell's command): the sampler
    # starts when the program blocks (here in usleep), the server once the process has lived 1 s
    # (HOTPATH_METRICS_START_MS); with 0, both at the start (the server at the sampler's first
    # pass, 250 ms in); the program counts its tasks at main and 600 ms in
    counts = {}
    for name, preload, env in (("bare", False, {}), ("default", True, {}),
                               ("start at once", True, {"HOTPATH_METRICS_START_MS": "0"}),
                               ("server off", True, {"HOTPATH_METRICS_SERVER_OFF": "true"})):
        r = run([target("exit_paths"), "tasks"], fmt="none", preload=preload, env=env)
        assert r.returncode == 0, r.stderr
        counts[name] = [int(n) for n in r.stdout.split(b"tasks ")[1].split()]
    assert counts == {"bare": [1, 1], "default": [1, 2], "start at once": [2, 3], "server off": [1, 2]}, counts


def test_main_thread_pthread_exit_ends_when_the_last_thread_does():
    """glibc ends the process with exit(0) when its last thread ends; the profiler's own threads
    never end, so it does that for glibc (the process hung before), at its first pass after the
    last thread ends: the worker ends at 100 ms, the pass at 250 ms. The first pass also starts
    the metrics server's thread, which it took for the program's until that thread had said its
    tid: the process ended at the second pass, 500 ms."""
    r = check_mode("pthread_exit", 0)
    assert r.stdout.endswith(b"worker done\natexit ran\n"), r.stdout
    start = time.monotonic()
    r = run([target("exit_paths"), "pthread_exit"], fmt="none")
    took = time.monotonic() - start
    assert r.returncode == 0 and took < 0.45, (r.returncode, took)


def test_atexit_after_main_pthread_exit_can_raise():
    """The profiler's thread makes glibc's exit(0) there: it ran the atexit handlers with every
    signal blocked, so a handler's raise(SIGTERM) did nothing and the status was 0."""
    plain = bare([target("exit_paths"), "pthread_exit_raise"])
    r = run([target("exit_paths"), "pthread_exit_raise"], fmt="none")
    assert plain.returncode == r.returncode == -signal.SIGTERM, (plain.returncode, r.returncode)
    assert r.stdout == plain.stdout and r.stdout.endswith(b"atexit ran\n"), r.stdout


def test_errno_at_main_as_bare():
    plain = bare([target("exit_paths"), "errno"])
    r = run([target("exit_paths"), "errno"], fmt="none")
    assert plain.stdout == r.stdout == b"errno at main 0\n", r.stdout


def test_underscore_exit():
    check_mode("_exit", 5)


def test_underscore_Exit():
    check_mode("_Exit", 6)


def test_sigterm_with_default_action_reports_and_dies_by_the_signal():
    r = check_mode("sigterm", -signal.SIGTERM)
    assert b"disposition default" in r.stdout   # the program reads back SIG_DFL, not our handler


def test_programs_own_sigterm_handler_runs():
    r = check_mode("handler", 7)
    assert b"handled" in r.stdout and b"disposition handler" in r.stdout


def test_ignored_sigterm_stays_ignored():
    r = check_mode("ignore", 3)
    assert b"disposition ignore" in r.stdout


def test_sigterm_from_outside_exit_status_143():
    """As a shell user sees it: kill -TERM gives 143, with the report on stderr."""
    script = f'"{target("exit_paths")}" sigterm & wait $!; echo "status $?"'
    env = clean_env({"HOTPATH_OUTPUT_FORMAT": "table"})
    p = subprocess.run(["sh", "-c", script], env=env, capture_output=True, timeout=30)
    assert b"status 143" in p.stdout, p.stdout
    assert b"threads - Thread CPU and memory statistics." in p.stderr, p.stderr


def test_fork_child_and_parent_each_report():
    r = run([target("exit_paths"), "fork"])
    assert r.returncode == 0, r.stderr
    assert len(r.reports) == 2, list(r.reports)
    child_pid = int(r.stdout.decode().split("child ")[1].split()[0])
    parent_pid = next(pid for pid in r.reports if pid != child_pid)
    child = row(r.reports[child_pid], "main")
    parent = row(r.reports[parent_pid], "main")
    # the child starts from zero: only what it allocated after fork
    assert 200000 <= child["alloc_bytes"] < 200000 + MARKER, child
    assert parent["alloc_bytes"] >= 300000 + MARKER, parent
    assert r.reports[child_pid]["pid"] == child_pid
    # the child frees a 120,000-byte block its parent allocated: its live heap is still right,
    # the parent's heap at the fork counted as inherited
    header = r.reports[child_pid]["threads"]["header"]
    assert child["dealloc_bytes"] >= 120000, child
    assert header["inherited_bytes"] >= 120000, header
    assert header["diff_bytes"] == header["inherited_bytes"] + header["alloc_bytes"] - header["dealloc_bytes"], header
    assert header["diff_bytes"] >= 200000, header
    # the text title says so, as Diff is then more than Alloc less Dealloc
    with tempfile.TemporaryDirectory() as d:
        env = {"HOTPATH_OUTPUT_FORMAT": "table", "HOTPATH_OUTPUT_PATH": os.path.join(d, "%p.txt")}
        p = subprocess.run([target("exit_paths"), "fork"], env=clean_env(env), capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        titles = [line for name in os.listdir(d) for line in open(os.path.join(d, name)) if line.startswith("threads - ")]
    assert len(titles) == 2 and sum(", Inherited: " in t for t in titles) == 1, titles


PY_SIGNALS = r"""
import os, signal, sys
print("term", signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
print("int", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
print("hup", signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)
try:
    os.kill(os.getpid(), signal.SIGINT)
    signal.pause() if hasattr(signal, "pause") else None
except KeyboardInterrupt:
    print("KeyboardInterrupt")
signal.signal(signal.SIGTERM, lambda s, f: print("term handler"))
os.kill(os.getpid(), signal.SIGTERM)
print("term", signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
print("term back", signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
sys.stdout.flush()
"""


def test_python_signals_and_keyboard_interrupt():
    cmd = [sys.executable, "-c", PY_SIGNALS]
    plain = bare(cmd)
    r = run(cmd)
    assert plain.returncode == 0, plain.stderr
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout, (r.stdout, plain.stdout)
    assert b"KeyboardInterrupt" in r.stdout and b"False" not in r.stdout, r.stdout


def test_python_ctrl_c_from_outside():
    """SIGINT sent to a sleeping python3 ends it with KeyboardInterrupt, as without the profiler."""
    code = "import time\nprint('ready', flush=True)\ntime.sleep(30)\n"
    results = []
    for preload in (False, True):
        p = subprocess.Popen([sys.executable, "-c", code], env=clean_env({"HOTPATH_OUTPUT_FORMAT": "table"}, preload),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdout.readline() == b"ready\n"
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        results.append((p.returncode, err))
    (plain_rc, plain_err), (rc, err) = results
    # Python >= 3.8 ends an uncaught KeyboardInterrupt by re-raising SIGINT with the default action
    assert plain_rc == rc == -signal.SIGINT, (plain_rc, rc)
    assert b"KeyboardInterrupt" in err and b"KeyboardInterrupt" in plain_err
    assert b"threads - Thread CPU and memory statistics." in err   # and the report followed


def test_lib_path_is_absolute():
    assert os.path.isabs(LIB) and os.path.exists(LIB)


def test_report_into_a_closed_pipe_does_not_kill_the_program():
    # `prog 2>&1 | head -c 1`: the reader is gone when the report is written at exit. The write
    # raised SIGPIPE and killed the program (141), and a shell's forked child before it could exec.
    script = 'sh -c "echo a; sleep 0.3" 2>&1 | head -c 1 >/dev/null; echo ${PIPESTATUS[0]}'
    plain = bare(["bash", "-c", script])
    profiled = run(["bash", "-c", script], fmt="table")
    assert plain.stdout.strip() == b"0", plain.stdout
    assert profiled.stdout.strip() == b"0", (profiled.stdout, profiled.stderr[-300:])


def test_report_never_lands_in_the_programs_own_fd_2():
    """A program started with fd 2 closed whose own file then gets number 2 found the report
    appended to that file."""
    d = tempfile.mkdtemp(prefix="hotpath-fd2-")
    try:
        log = os.path.join(d, "log")
        script = 'exec 2>&-; exec sh -c \'exec 2>"$1"; echo log >&2\' sh "$1"'
        plain = bare(["bash", "-c", script, "_", log])
        with open(log, "rb") as f:
            bare_log = f.read()
        r = run(["bash", "-c", script, "_", log], fmt="table")
        with open(log, "rb") as f:
            profiled_log = f.read()
        assert plain.returncode == r.returncode == 0
        assert bare_log == profiled_log == b"log\n", profiled_log[:200]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_exit_from_a_handler_that_interrupted_malloc():
    """_exit(7) in a SIGALRM handler while main is inside malloc: the report, written on that
    thread, waited for glibc's arena lock the interrupted malloc held (3-7 runs in 10 hung). The
    sampler writes it now."""
    for _ in range(4):
        r = run([target("exit_paths"), "exit_in_malloc"], timeout=30)
        assert r.returncode == 7, r.returncode
        assert row(r.report, "main")["alloc_count"] > 0


def test_exit_from_a_handler_before_the_sampler_started():
    """The same at 10 and 20 ms, before the deferred sampler thread starts (core/sampler.h): the
    report is written on the interrupted thread itself, so it must not wait for the arena lock
    that thread holds (no file:line there, which libdw's malloc would need). A hang is the test's
    timeout."""
    for usec in ("10000", "20000"):
        for _ in range(6):
            r = run([target("exit_paths"), "exit_in_malloc", usec], timeout=30)
            assert r.returncode == 7, (usec, r.returncode, r.stderr[-300:])
            assert r.report["ended"]["how"] == "exit" and r.report["ended"]["status"] == 7
            assert row(r.report, "main")["alloc_count"] > 0


def test_ending_signal_before_the_sampler_started():
    """SIGALRM at its default action 10 ms in, while main churns malloc: the report says the
    signal, and the process dies of it."""
    for _ in range(6):
        r = run([target("exit_paths"), "die_in_malloc", "10000"], timeout=30)
        assert r.returncode == -signal.SIGALRM, (r.returncode, r.stderr[-300:])
        assert r.report["ended"]["how"] == "signal" and r.report["ended"]["signal"] == "SIGALRM"
        assert row(r.report, "main")["alloc_count"] > 0


def test_daemon_does_not_hold_the_callers_stderr_pipe():
    """A daemon child kept the profiler's copy of the caller's stderr pipe open, so a caller
    capturing the output (out=$(daemon), subprocess.run) waited for the daemon to end."""
    for mode in ("daemonize", "daemon3"):
        start = time.monotonic()
        r = subprocess.run([target("exit_paths"), mode], env=clean_env({"HOTPATH_OUTPUT_FORMAT": "table"}),
                           capture_output=True, timeout=30)
        took = time.monotonic() - start
        assert r.returncode == 0, (mode, r.returncode)
        assert took < 2.5, (mode, took)   # the daemon lives 3 s


def test_background_child_that_drops_its_output_holds_no_pipe_open():
    """A fork child that points its stderr elsewhere (`f >/dev/null 2>&1 &`) or closes it, and
    lives on, kept the caller's pipe open through the profiler's copy of stderr: out=$(...) and
    subprocess.run(capture_output=True) waited until the child ended. The shell's own report
    still reaches the pipe."""
    for script in ('f() { sleep 3; }; f >/dev/null 2>&1 & echo started',
                   '( exec 1>&- 2>&-; sleep 3 ) & echo started'):
        start = time.monotonic()
        r = run(["bash", "-c", script], fmt="table")
        took = time.monotonic() - start
        assert r.returncode == 0 and r.stdout == b"started\n", (script, r.stdout, r.stderr[-300:])
        assert took < 2, (script, took)      # the child lives 3 s
        assert b"[hotpath] pid" in r.stderr, r.stderr[-300:]


def test_pipeline_producer_and_other_ending_signals_report_and_die_the_same():
    """SIGPIPE is how a pipeline's producer usually ends (git log | head); SIGUSR1, SIGALRM and
    the other signals whose default action ends the process ended it with no report."""
    r = run(["bash", "-c", "yes | head -1; echo ${PIPESTATUS[0]}"])
    assert r.returncode == 0 and r.stdout == b"y\n141\n", (r.stdout, r.stderr[-300:])
    ended = {rep["argv"][0]: rep["ended_by_signal"] for rep in r.reports.values()}
    assert ended.get("yes") == "SIGPIPE" and ended.get("head") is None, ended
    r = run(["bash", "-c", "sleep 5 & p=$!; sleep 0.3; kill -USR1 $p; wait $p; echo $?"])
    assert r.returncode == 0 and r.stdout == b"138\n", (r.stdout, r.stderr[-300:])
    ended = sorted((rep["argv"][0], rep["argv"][-1], rep["ended_by_signal"] or "") for rep in r.reports.values())
    assert ended == [("bash", "sleep 5 & p=$!; sleep 0.3; kill -USR1 $p; wait $p; echo $?", ""),
                     ("sleep", "0.3", ""), ("sleep", "5", "SIGUSR1")], ended


def test_report_never_goes_into_a_file_the_program_put_at_fd_2():
    """A program that points fd 2 at its data file, its stderr being a pipe, found the report
    appended to that file once the copy of stderr was let go at the dup2 (found by a review).
    The report goes to fd 2 only while it is the original stderr: after a silenced stretch that
    restored it, it arrives as before."""
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "data.txt")
        script = ("import os, sys\n"
                  "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n"
                  "os.dup2(fd, 2)\n"
                  "os.write(2, b'hello\\n')\n")
        r = run([sys.executable, "-c", script, data], fmt="table")
        assert r.returncode == 0, r.stderr[-300:]
        with open(data, "rb") as f:
            assert f.read() == b"hello\n"
    script = ("import os\n"
              "saved = os.dup(2)\n"
              "os.dup2(os.open('/dev/null', os.O_WRONLY), 2)\n"
              "os.dup2(saved, 2)\n")
    r = run([sys.executable, "-c", script], fmt="table")
    assert r.returncode == 0 and b"[hotpath] pid" in r.stderr, r.stderr[-300:]
