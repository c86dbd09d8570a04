"""exec and spawn: the replaced image reports first, a failed exec goes on profiling, %n numbers
the images, children stay profiled (or not, with HOTPATH_NO_CHILDREN), vfork children pass through;
and fatal signals get a report before the same death."""
import json
import os
import statistics
import signal
import tempfile
import subprocess
import sys

from harness import bare, clean_env, row, run, target, validate


def reports_by_name(env, args):
    with tempfile.TemporaryDirectory() as d:
        env = {"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "%p-%n.json"), **env}
        p = subprocess.run([target("exec_paths")] + args, env=clean_env(env), capture_output=True, timeout=60)
        found = {}
        for name in os.listdir(d):
            with open(os.path.join(d, name)) as f:
                found[name] = validate(json.load(f))
        return p, found


def test_exec_writes_one_report_per_image():
    p, found = reports_by_name({}, ["exec"])
    assert p.returncode == 0 and p.stdout == b"after exec\n", (p.returncode, p.stdout, p.stderr)
    assert len(found) == 2, list(found)
    pids = {name.split("-")[0] for name in found}
    assert len(pids) == 1                                  # exec keeps the pid
    first = next(r for n, r in found.items() if n.endswith("-0.json"))
    second = next(r for n, r in found.items() if n.endswith("-1.json"))
    assert first["image"] == 0 and second["image"] == 1
    assert first["argv"][1:] == ["exec"] and second["argv"][1:] == ["after"]
    assert 100000 <= row(first, "main")["alloc_bytes"] < 200000
    assert row(second, "main")["alloc_bytes"] >= 200000


def test_a_fork_child_that_execs_at_once_is_spawning_not_a_program():
    """A shell runs each command by fork and exec: the child's few milliseconds before the exec
    made a report of their own, two reports per command (a vfork child, which dash uses, made
    none). The program it execs is image 0 of its pid, as after vfork or posix_spawn. A child
    that lived to its sampler's first pass (250 ms) is a program of its own and keeps its report."""
    for wait_ms, images in ((None, ["after"]), ("400", ["fork-exec", "after"])):
        p, found = reports_by_name({}, ["fork-exec"] + ([wait_ms] if wait_ms else []))
        assert p.returncode == 0 and p.stdout.endswith(b"status 0\n"), (p.returncode, p.stdout, p.stderr)
        child = p.stdout.split(b"child ")[1].split()[0].decode()
        mine = {int(n.split("-")[1].split(".")[0]): r for n, r in found.items() if n.startswith(child + "-")}
        assert sorted(mine) == list(range(len(images))), (wait_ms, sorted(found))
        for image, argv1 in enumerate(images):
            assert mine[image]["image"] == image and mine[image]["argv"][1] == argv1, (wait_ms, mine[image]["argv"])
        assert row(mine[len(images) - 1], "main")["alloc_bytes"] >= 200000


def test_failed_exec_goes_on_profiling():
    p, found = reports_by_name({}, ["exec-fail"])
    assert p.returncode == 0 and b"exec failed -1" in p.stdout
    assert len(found) == 1, list(found)
    (report,) = found.values()
    assert report["image"] == 0
    assert row(report, "main")["alloc_bytes"] >= 300000    # what came after the failed exec


def test_explicit_environment_keeps_children_profiled():
    for mode in ("env", "spawn"):
        p, found = reports_by_name({}, [mode])
        assert b"probe profiled=1 image_var=unset" in p.stdout, (mode, p.stdout)
        # the child kept the user's HOTPATH_* settings: its report is a JSON file too
        assert len(found) == 2, (mode, list(found))


def test_no_children():
    # vfork-env: a vfork child's exec (dash runs every command so) obeys it too; bigenv: an
    # environment too large for the stack is made on the profiler's heap, not passed on as it is;
    # smallspawn: nor is one made on a stack that has no room for it (a 16 KB thread stack died)
    for mode in ("env", "spawn", "vfork-env", "bigenv", "smallspawn"):
        p, found = reports_by_name({"HOTPATH_NO_CHILDREN": "true"}, [mode])
        # nor does an unprofiled child get the image number (it leaked to its own children)
        assert b"probe profiled=0 image_var=unset" in p.stdout, (mode, p.stdout)
        assert len(found) == 1, (mode, list(found))


def test_vfork_and_spawn_loop_keeps_one_correct_parent_report():
    p, found = reports_by_name({}, ["vfork"])
    assert p.returncode == 0 and b"spawned 100" in p.stdout, p.stderr
    parent = [r for r in found.values() if r["argv"][1:] == ["vfork"]]
    assert len(parent) == 1, [r["argv"] for r in found.values()]
    assert row(parent[0], "main")["alloc_count"] >= 50
    assert row(parent[0], "main")["alloc_bytes"] >= 50 * 1000
    children = [r for r in found.values() if r["argv"][1:] == ["quiet"]]
    assert len(children) == 100                              # every child profiled on its own


def check_fatal(mode, sig, thread):
    plain = bare([target("exit_paths"), mode])
    r = run([target("exit_paths"), mode])
    assert plain.returncode == r.returncode == -sig, (plain.returncode, r.returncode, r.stderr)
    report = r.report
    assert report["ended_by_signal"] == "SIG" + signal.Signals(sig).name[3:]
    assert report["signal_thread"] == thread
    assert row(report, "main")["alloc_bytes"] >= 100000
    return report


def test_segfault_reports_then_dies_by_sigsegv():
    report = check_fatal("segv", signal.SIGSEGV, "crasher")
    assert row(report, "crasher")["alloc_bytes"] >= 50000


def test_abort_and_fpe():
    check_fatal("abort", signal.SIGABRT, "main")
    check_fatal("fpe", signal.SIGFPE, "main")


def test_sigterm_names_the_signal_and_normal_exit_does_not():
    r = run([target("exit_paths"), "sigterm"])
    assert r.report["ended_by_signal"] == "SIGTERM"
    r = run([target("exit_paths"), "return"])
    assert r.report["ended_by_signal"] is None and r.report["signal_thread"] is None


def test_an_exec_image_counts_only_its_own_cpu():
    # exec keeps the thread and its CPU time: the image after it showed the earlier program's CPU
    # as its main thread's, and the profiler's start as the program's
    burn = ("import os, time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\n"
            "os.execv('/bin/true', ['true'])\n")
    with tempfile.TemporaryDirectory() as d:
        env = {"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "%p-%n.json")}
        p = subprocess.run([sys.executable, "-c", burn], env=clean_env(env), capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        found = {}
        for name in os.listdir(d):
            with open(os.path.join(d, name)) as f:
                found[name.split("-")[1]] = validate(json.load(f))
    assert sorted(found) == ["0.json", "1.json"], list(found)
    python, true = row(found["0.json"], "main"), row(found["1.json"], "main")
    assert python["cpu_total_ns"] >= 400_000_000, python
    assert true["cpu_total_ns"] < 50_000_000, true
    # the start is the profiler's cost, which /bin/true's report states
    assert found["1.json"]["profiler"]["cpu_ns"] > 0, found["1.json"]["profiler"]


def test_the_profilers_cost_includes_its_start():
    """The start (the constructor on the main thread) is the profiler's cost, with its threads':
    of the CPU a short process pays for the profiler (preloaded against bare, medians of seven
    runs each, side by side), the report's profiler cost and main thread count well over a third
    (about 0.6 here; the rest is the loader mapping the libraries and the exit). Without the start
    they counted a fifth or less. (A share of the whole process's CPU, as this test once asked,
    moves with what exec itself costs on the machine.)"""
    def one(preload):
        with tempfile.TemporaryDirectory() as d:
            env = {"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "r.json")}
            p = subprocess.Popen(["/bin/true"], env=clean_env(env, preload=preload))
            _, status, usage = os.wait4(p.pid, 0)
            assert status == 0
            paid = (usage.ru_utime + usage.ru_stime) * 1e9
            if not preload:
                return paid, 0
            with open(os.path.join(d, "r.json")) as f:
                report = validate(json.load(f))
        return paid, row(report, "main")["cpu_total_ns"] + report["profiler"]["cpu_ns"]

    bare_cpu = statistics.median(one(False)[0] for _ in range(7))
    runs = [one(True) for _ in range(7)]
    added = statistics.median(paid for paid, _ in runs) - bare_cpu
    counted = statistics.median(c for _, c in runs)
    assert added > 0 and counted >= 0.35 * added, (counted, added, bare_cpu)


def test_an_exec_that_cannot_begin_writes_no_report():
    """Each exec wrote the image's report before it was tried, so a failed one left an extra
    report: Python's os.execvp tries every PATH entry, and wrote one report per entry (13 for one
    process, found by a sweep). A path that names no executable file now writes none."""
    script = ("import os\n"
              "try:\n    os.execvp('hotpath-no-such-command', ['x'])\n"
              "except OSError as e:\n    print(e.errno)\n")
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "hotpath-no-such-command"))     # a directory is not executable
        env = {"PATH": f"/nonexistent/a:{d}:/nonexistent/b:/usr/local/bin:/usr/bin:/bin"}
        r = run([sys.executable, "-c", script], fmt="table", env=env)
    assert r.returncode == 0 and r.stdout in (b"2\n", b"13\n"), (r.stdout, r.stderr[-300:])
    headers = [line for line in r.stderr.decode().splitlines() if line.startswith("[hotpath] pid")]
    assert len(headers) == 1, headers


def test_a_program_that_clears_its_own_environment_runs_its_child_as_bare():
    """env -i and env -u LD_PRELOAD take the library out of their own environment and exec with
    it: the profiler put LD_PRELOAD and its settings back, so `env -i printenv` printed them
    (found by a sweep). An explicit environment array still gets them back (the test above)."""
    r = run(["env", "-i", "/usr/bin/printenv"], fmt="none")
    assert r.returncode == 0 and r.stdout == b"", r.stdout
    r = run(["env", "-u", "LD_PRELOAD", "printenv", "LD_PRELOAD"], fmt="none")
    assert r.returncode == 1 and r.stdout == b"", r.stdout
