"""The plain data calls a single-threaded program makes, which the I/O hooks make themselves
(views/io/io_raw.h): results and errno exactly as bare, still counted, glibc's functions again once a
thread exists or a cancellation is asked for, and an interposer preloaded after us still called."""
import os
import shutil
import tempfile

from harness import LIB, bare, run, target


def temp_file(report):
    found = [x for x in report["io"]["resources"] if x["name"].startswith("/tmp/hp_io_raw_")]
    assert len(found) == 1, [x["name"] for x in report["io"]["resources"]]
    return found[0]


def program_report(r):
    """The report of io_raw itself: its child (the SA_RESTART case) leaves one too, which knows
    the parent's resources but did no I/O on the temporary file."""
    mine = [rep for rep in r.reports.values() if temp_file(rep)["write"]["bytes"] > 0]
    assert len(mine) == 1, (len(r.reports), len(mine))
    return mine[0]


def test_raw_calls_return_what_glibc_returns_and_count():
    plain = bare([target("io_raw")])
    profiled = run([target("io_raw")])
    assert plain.returncode == profiled.returncode == 0, (plain.returncode, profiled.returncode, profiled.stderr)
    assert plain.stdout == profiled.stdout
    # what the program printed is what it saw: the errors it expects are among them
    out = plain.stdout.decode()
    for expected in ("read bad buffer = -1 errno EFAULT", "pread on a pipe = -1 errno ESPIPE",
                     "read interrupted by SIGALRM = -1 errno EINTR", "read restarted after SIGALRM = 1",
                     "reader cancelled = 1", "__read_chk 64 = 64"):
        assert expected in out, out
    f = temp_file(program_report(profiled))
    # write 4096 + pwrite 10 + writev 12; pread 10 + __pread_chk 8 + readv 0 + readv 12 + __read_chk 64
    assert f["write"]["bytes"] == 4118 and f["write"]["op_count"] == 4, f["write"]
    assert f["write"]["error_count"] == 1                       # the bad buffer
    assert f["read"]["bytes"] == 94 and f["read"]["op_count"] == 7, f["read"]
    assert f["read"]["error_count"] == 2                        # the bad buffer, iovcnt -1


def test_main_thread_cancelling_itself_ends_as_bare():
    plain = bare([target("io_raw"), "selfcancel"], timeout=30)
    profiled = run([target("io_raw"), "selfcancel"], timeout=30)
    assert plain.returncode == profiled.returncode == 0, (plain.returncode, profiled.returncode)
    assert plain.stdout == profiled.stdout
    rep = program_report(profiled)
    assert rep["threads"]["header"]["rss_bytes"] > 0    # read as the sampler sees it: main has ended


def test_c11_thread_cancels_main_blocked_in_read():
    # thrd_create starts a thread without pthread_create's symbol: main's read was a raw call,
    # which the cancel could not end, and the process hung.
    plain = bare([target("io_raw"), "c11cancel"], timeout=30)
    profiled = run([target("io_raw"), "c11cancel"], timeout=30)
    assert plain.returncode == profiled.returncode == 0, (plain.returncode, profiled.returncode)
    assert plain.stdout == profiled.stdout


def test_writes_of_a_signal_handler_all_counted():
    # A SIGALRM handler that ran inside the CPU profile's SIGPROF handler found the thread's guard
    # up: its writes were not counted (2-13 short in 3,600).
    d = tempfile.mkdtemp(prefix="hotpath-handler-")
    try:
        path = os.path.join(d, "h")
        r = run([target("io_raw"), "handler", path], env={"HOTPATH_CPU_HZ": "999"})
        assert r.returncode == 0, r.stderr[-300:]
        n = int(r.stdout.split()[-1])
        assert n > 100 and os.path.getsize(path) == n
        f = [x for x in r.report["io"]["resources"] if x["name"] == path]
        assert len(f) == 1 and f[0]["write"]["op_count"] == n, (n, f)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_interposer_after_hotpath_still_called():
    shim = target("libhp_count_rw.so")
    plain = bare([target("io_raw")], env={"LD_PRELOAD": shim})
    profiled = run([target("io_raw")], env={"LD_PRELOAD": LIB + ":" + shim})
    assert plain.returncode == profiled.returncode == 0, profiled.stderr

    def counts(stderr):
        line = [x for x in stderr.decode().splitlines() if x.startswith("count_rw: ")][-1]
        words = line.split()
        return int(words[2]), int(words[4])

    reads, writes = counts(plain.stderr)
    assert reads >= 10 and writes >= 40, (reads, writes)
    hp_reads, hp_writes = counts(profiled.stderr)
    # the profiler's own reads reach the interposer too; none of the program's may skip it
    assert hp_reads >= reads and hp_writes >= writes, (reads, writes, hp_reads, hp_writes)
