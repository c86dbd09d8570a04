"""Living inside demanding hosts: descriptors the program manages itself, a small RLIMIT_NOFILE,
and checkpoints that survive SIGKILL."""
import json
import os
import signal
import subprocess
import tempfile
import time

from harness import bare, clean_env, row, run, target, validate


def test_program_that_closes_every_descriptor_gets_the_numbers_it_expects():
    r = run([target("fd_hygiene"), "closeall"])
    assert r.returncode == 0
    assert r.stdout == b"3 4 5 6 7 \n", r.stdout
    assert row(r.report, "main")                     # and the report still came


def test_the_profilers_own_descriptors_stay_out_of_the_programs_numbers():
    """libunwind opens a pipe the first time a lock's stack is taken: it must not take fd 3."""
    r = run([target("fd_hygiene"), "lockfirst"])
    assert r.returncode == 0 and r.stdout == b"3\n", r.stdout


def test_program_takes_the_numbers_of_libunwinds_pipe():
    """libunwind keeps its address-check pipe in its own variables: when the program dup2s its
    file onto those numbers, libunwind must neither close the program's descriptors nor read or
    write them (it closed two of them before)."""
    cmd = [target("fd_hygiene"), "takeover"]
    plain = bare(cmd)
    r = run(cmd, env={"HOTPATH_CPU_HZ": "1000", "HOTPATH_ALLOC_SAMPLE_BYTES": "64"})
    assert plain.returncode == 0 and plain.stdout == b"size 5 offset 5 same 64 closed 64\n", plain
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout, r.stdout
    assert r.report["functions_cpu"]["samples_count"] > 0       # unwinding went on
    assert r.report["functions_alloc"]["samples_count"] > 0


def test_the_profilers_descriptors_stay_low_under_a_high_limit():
    """The kernel sizes a process's descriptor table to its highest open number and copies it at
    every fork: the profiler's descriptors at 64 below a limit of 20,000 made each fork copy 160 KB
    of table (8 MB under the 1M limits of containers). They go no higher than 1024 + 63. The one
    the program lives long enough to be given is the metrics server's listener (made at the first
    pass with HOTPATH_METRICS_START_MS=0)."""
    listing = "import os, time; time.sleep(0.6); print(*sorted(int(f) for f in os.listdir('/proc/self/fd')))"
    cmd = ["sh", "-c", "ulimit -S -n $(ulimit -H -n) && exec /usr/bin/python3 -c \"%s\"" % listing]
    plain = bare(cmd)
    r = run(cmd, fmt="none", env={"HOTPATH_METRICS_START_MS": "0"})
    assert r.returncode == 0, r.stderr
    fds, own = [int(x) for x in r.stdout.split()], [int(x) for x in plain.stdout.split()]
    ours = sorted(set(fds) - set(own))
    assert len(ours) == 1 and 1024 <= ours[0] < 1088, (fds, own)


def test_started_under_a_small_rlimit_the_program_still_gets_fd_3():
    """Under a limit below 256 from the start, the profiler's descriptors take the top numbers."""
    r = run(["sh", "-c", "ulimit -n 64 && exec " + target("fd_hygiene") + " lockfirst"])
    assert r.returncode == 0 and r.stdout == b"3\n", (r.stdout, r.stderr)


def test_small_rlimit_never_meets_emfile_because_of_the_profiler():
    r = run([target("fd_hygiene"), "rlimit"], fmt="table")
    assert r.returncode == 0
    assert r.stdout == b"opened 60 error none\n", r.stdout
    assert b"threads - Thread CPU" in r.stderr         # the report itself is still written


def test_a_program_that_runs_out_of_descriptors_gets_as_many_as_bare():
    """docs/DESIGN.md rule 12: the profiler's own descriptors (its copy of stderr, libunwind's pipe, the
    metrics server's socket) sit under the limit; at the program's first EMFILE they are let go
    and the call is made again, so the program gets every number (it got 4 fewer before)."""
    cmd = ["sh", "-c", "ulimit -n 300 && exec " + target("fd_hygiene") + " exhaust"]
    plain = bare(cmd)
    assert plain.returncode == 0 and plain.stdout.startswith(b"opened "), plain
    r = run(cmd, fmt="table")
    assert r.returncode == 0, r.stderr
    count = lambda out: out.split()[:2] + out.split()[4:]    # opened N ... error ...
    assert count(r.stdout) == count(plain.stdout), (r.stdout, plain.stdout)
    assert b"threads - Thread CPU" in r.stderr         # the report went to fd 2 instead


def test_a_program_at_its_descriptor_limit_never_meets_emfile_from_the_sampler():
    # Once the program has taken every number, the sampler's /proc reads (a descriptor for a
    # moment, four times a second) took the one it had just closed: 738 failed opens in 3 s.
    for limit in (64, 300):
        cmd = ["sh", "-c", "ulimit -n %d && exec %s atlimit" % (limit, target("fd_hygiene"))]
        r = run(cmd, fmt="none")
        assert r.returncode == 0 and r.stdout == b"failed 0\n", (limit, r.stdout, r.stderr[-300:])


def test_checkpoint_survives_sigkill():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "report.json")
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": path,
                         "HOTPATH_CHECKPOINT_S": "1"})
        p = subprocess.Popen([target("fd_hygiene"), "sleep", "10000"], env=env)
        deadline = time.monotonic() + 5
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.1)
        p.send_signal(signal.SIGKILL)
        p.wait()
        assert os.path.exists(path), "no checkpoint within 5 s"
        assert not os.path.exists(path + ".tmp")
        report = validate(json.load(open(path)))
        assert report["pid"] == p.pid
        assert row(report, "main")["alloc_bytes"] >= 123456
        # a checkpoint, and it says so (it read like a complete report before; found by a sweep)
        assert report["ended_by_signal"] is None and report["final"] is False, report["final"]


def test_checkpoint_then_final_report():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        r = run([target("fd_hygiene"), "sleep", "2300"],
                env={"HOTPATH_OUTPUT_PATH": path, "HOTPATH_CHECKPOINT_S": "1"})
        assert r.returncode == 0
        report = validate(json.load(open(path)))         # the final one replaced the checkpoints
        assert report["elapsed_ns"] >= 2.3e9 and report["final"] is True
        assert sorted(os.listdir(d)) == ["r.json"]
