"""Signals and descriptors as the program sees them: dispositions a vfork child sets stay the
child's, the profiler holds no descriptor the program can see, and the CPU profile samples on a
real-time signal of its own, beside programs that use SIGPROF or real-time signals themselves."""
import json
import os
import shutil
import subprocess
import tempfile

from harness import ROOT, bare, clean_env, run, target

PYTHON = "/usr/bin/python3"

PIPELINES = r"""
import subprocess
for i in range(3):
    r = subprocess.run('grep SigIgn /proc/self/status; yes | head -1 >/dev/null; echo ${PIPESTATUS[0]}',
                       shell=True, executable='/bin/bash', capture_output=True, text=True)
    print(r.stdout.strip(), '|', r.stderr.strip())
"""


def test_each_python_subprocess_gets_sigpipe_at_its_default():
    """Python spawns with vfork and resets SIGPIPE in the child: the hook recorded that in the
    parent's memory, and the second and third pipelines inherited SIGPIPE ignored (`yes` said
    "Broken pipe" and exited 1 instead of dying of SIGPIPE, 141)."""
    cmd = [PYTHON, "-c", PIPELINES]
    b = bare(cmd)
    assert b.stdout.count(b"141 |") == 3, b.stdout
    r = run(cmd, fmt="none")
    assert (r.returncode, r.stdout, r.stderr) == (b.returncode, b.stdout, b.stderr), r.stdout


LIST_FDS = r"""
import os, threading, time
ts = [threading.Thread(target=time.sleep, args=(0.01,)) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
time.sleep(0.4)                     # the sampler's first passes, stacks of new locks taken
print(sorted(int(f) for f in os.listdir('/proc/self/fd')))
"""


def test_the_profiler_holds_no_descriptor_the_program_sees():
    """Python's pass_fds test lists the child's descriptors: it found a copy of stderr and
    libunwind's pipe (1024-1026) beside its own."""
    cmd = [PYTHON, "-c", LIST_FDS]
    b = bare(cmd)
    r = run(cmd, fmt="json", env={"HOTPATH_METRICS_SERVER_OFF": "true"})
    assert r.returncode == 0 and r.stdout == b.stdout, (r.stdout, b.stdout)
    assert r.report["threads"]["rows"], r.report   # and the report came


def test_a_copy_of_stderr_is_made_when_the_program_lets_fd_2_go():
    """The report goes to the original stderr (a file here: a pipe or a terminal is let go of as
    fd 2 is replaced) after the program closed fd 2, closed sys.stderr (fclose(stderr) at exit, as
    gnulib's close_stdout does) or put /dev/null there."""
    for code in ("import os; os.close(2)",
                 "import sys; sys.stderr.close()",
                 "import os; os.dup2(os.open('/dev/null', os.O_WRONLY), 2)"):
        with tempfile.TemporaryFile() as err:
            p = subprocess.run([PYTHON, "-c", code], env=clean_env({"HOTPATH_OUTPUT_FORMAT": "table"}),
                               stdout=subprocess.DEVNULL, stderr=err, timeout=60)
            err.seek(0)
            text = err.read()
        assert p.returncode == 0, text
        assert b"threads - Thread CPU" in text, (code, text[-300:])


def test_a_program_that_takes_the_profiles_signal_moves_it():
    """The program reads SIG_DFL on the first real-time signal, installs its handler there and gets
    exactly its own 200 queued signals; the profile goes on from another signal."""
    cmd = [target("cpu_rt_claim")]
    b = bare(cmd)
    assert b.returncode == 0 and b.stdout == b"mine 200 others 0\n", b.stdout
    r = run(cmd)
    assert (r.returncode, r.stdout, r.stderr) == (0, b.stdout, b""), (r.stdout, r.stderr)
    c = r.report["functions_cpu"]
    first = int(subprocess.run([PYTHON, "-c", "import signal; print(int(signal.SIGRTMIN))"],
                               capture_output=True).stdout)
    assert c["off_reason"] is None and c["signal"] and c["signal"] != first, c
    burn = [f for f in c["functions"] if f["name"] == "burn_cpu"]
    assert burn and burn[0]["self_count"] >= 0.8 * c["samples_count"] > 0, c["functions"][:3]


def test_a_program_that_takes_every_real_time_signal_stops_the_profile():
    cmd = [target("cpu_rt_claim"), "all"]
    b = bare(cmd)
    r = run(cmd)
    assert (r.returncode, r.stdout, r.stderr) == (0, b.stdout, b""), (r.stdout, r.stderr)
    c = r.report["functions_cpu"]
    assert c["off_reason"] == "the program took every real-time signal" and c["signal"] is None, c


def go_program():
    """tests/targets/go/cgoburn built with the system's Go (Debian golang-go), cgo on."""
    out = os.path.join(ROOT, "build", "targets", "go_cgoburn")
    src = os.path.join(ROOT, "tests", "targets", "go", "cgoburn")
    go = shutil.which("go") or "/usr/lib/go/bin/go"
    assert os.path.exists(go), "Go is missing: scripts/install-deps.sh installs golang-go"
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(os.path.join(src, "main.go")):
        cache = os.path.join(ROOT, "build", "go")
        env = dict(os.environ, CGO_ENABLED="1", GOCACHE=os.path.join(cache, "cache"), GOPATH=os.path.join(cache, "path"),
                   GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local")
        subprocess.run([go, "build", "-o", out, "."], cwd=src, env=env, check=True, timeout=300)
    return out


def test_a_go_program_with_cgo_gets_cpu_samples_of_go_and_c():
    """Go's runtime installs its own SIGPROF handler through libc at start: the profile was off for
    every Go program. It samples on the first real-time signal, which Go leaves alone, with
    SA_ONSTACK (goroutine stacks are too small for a signal frame). Go exits through exit_group,
    so the report read is the checkpoint written during the program's sleep."""
    cmd = [go_program()]
    b = bare(cmd)
    with tempfile.TemporaryDirectory(prefix="hotpath-test-") as d:
        path = os.path.join(d, "report.json")
        r = run(cmd, env={"HOTPATH_CHECKPOINT_S": "1", "HOTPATH_OUTPUT_PATH": path})
        assert (r.returncode, r.stdout) == (b.returncode, b.stdout) == (0, b"ok true\n"), (r.stdout, r.stderr[-300:])
        with open(path) as f:
            report = json.load(f)
    c = report["functions_cpu"]
    assert c["off_reason"] is None, c
    names = {f["name"]: f["self_count"] for f in c["functions"]}
    cgo = sum(n for name, n in names.items() if name.endswith("_Cfunc_burn"))
    assert cgo >= 30 and names.get("main.spin", 0) >= 30, names


def failed_cases(junit_path):
    """The test cases a regrtest run's JUnit XML lists as failed or in error."""
    import xml.etree.ElementTree as ET
    bad = set()
    for case in ET.parse(junit_path).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            bad.add(f'{case.get("classname")}.{case.get("name")}')
    return bad


def test_cpythons_own_subprocess_and_signal_suites_pass_as_bare():
    """CPython's test_subprocess and test_signal (Debian libpython3.11-testsuite) under the
    preload, every process's report to a file: test_restore_signals failed (a vfork child's
    SIGPIPE reset leaked into the parent's view) and test_pass_fds_redirected (a child saw the
    profiler's descriptors beside its own). A case that fails bare on this machine (a missing
    resource, a sandbox's limits) may fail preloaded too; no other may."""
    with tempfile.TemporaryDirectory(prefix="hotpath-test-") as d:
        os.chmod(d, 0o777)                   # children the suite runs as another user write here too
        cmd = [PYTHON, "-m", "test", "test_subprocess", "test_signal", "--junit-xml"]
        b = subprocess.run(cmd + [os.path.join(d, "bare.xml")], env=clean_env(preload=False),
                           capture_output=True, timeout=900, cwd=d)
        assert os.path.exists(os.path.join(d, "bare.xml")), b.stdout[-2000:]
        bare_failed = failed_cases(os.path.join(d, "bare.xml"))
        out = os.path.join(d, "reports")
        os.mkdir(out)
        os.chmod(out, 0o777)
        env = {"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(out, "%p-%n.json")}
        r = subprocess.run(cmd + [os.path.join(d, "hotpath.xml")], env=clean_env(env),
                           capture_output=True, timeout=900, cwd=d)
        assert os.path.exists(os.path.join(d, "hotpath.xml")), r.stdout[-3000:]
        failed = failed_cases(os.path.join(d, "hotpath.xml"))
        reports = len(os.listdir(out))
    assert not failed - bare_failed, (sorted(failed - bare_failed), r.stdout[-3000:])
    assert b.returncode != 0 or r.returncode == 0, r.stdout[-3000:]
    assert reports > 100, reports              # the suite's children were profiled
