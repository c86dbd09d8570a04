"""Threads view against known truth: allocations per thread, CPU time, exited threads, names."""
import shutil
import tempfile

from harness import LIB, assert_header_sums, bare, row, rows, run, target

# glibc rounds a request up to its chunk size: at most 24 bytes more usable space per block
ROUNDING = 24


def parse_truth(stdout):
    truth = {}
    for line in stdout.decode().splitlines():
        name, *nums = line.split()
        truth[name] = [int(n) for n in nums]
    return truth


def within_rounding(reported, requested, calls, what):
    assert requested <= reported <= requested + calls * ROUNDING, \
        f"{what}: reported {reported}, requested {requested} in {calls} calls"


def test_known_allocations_per_thread():
    r = run([target("alloc_known")])
    assert r.returncode == 0, r.stderr
    report = r.report
    for name, (alloc, freed, n_alloc, n_free) in parse_truth(r.stdout).items():
        t = row(report, name)
        within_rounding(t["alloc_bytes"], alloc, n_alloc, f"{name} alloc")
        within_rounding(t["dealloc_bytes"], freed, n_free, f"{name} dealloc")
        assert t["alloc_count"] == n_alloc, (name, t["alloc_count"], n_alloc)
        assert t["dealloc_count"] == n_free, (name, t["dealloc_count"], n_free)
        assert t["diff_bytes"] == t["alloc_bytes"] - t["dealloc_bytes"]
        assert t["status"] == "Exited"
    # the producer's blocks were freed by the consumer: the two Diffs cancel exactly
    assert row(report, "producer")["diff_bytes"] == -row(report, "consumer")["diff_bytes"] > 0
    assert_header_sums(report)


def test_stdout_unchanged_by_preload():
    plain = bare([target("alloc_known")])
    profiled = run([target("alloc_known")])
    assert plain.returncode == profiled.returncode == 0
    assert plain.stdout == profiled.stdout


def test_cpu_of_a_live_thread_matches_getrusage():
    r = run([target("cpu_burn")])
    assert r.returncode == 0, r.stderr
    measured = parse_truth(r.stdout)["burner"][0]
    t = row(r.report, "burner")
    assert t["status"] in ("Sleeping", "Running"), t["status"]
    assert abs(t["cpu_total_ns"] - measured) <= 0.05 * measured, (t["cpu_total_ns"], measured)
    assert t["cpu_total_ns"] == t["cpu_user_ns"] + t["cpu_sys_ns"]
    assert t["max_cpu_percent"] is not None and t["max_cpu_percent"] >= 90, t["max_cpu_percent"]


def test_exited_thread_keeps_its_row():
    r = run([target("cpu_burn"), "exit-early"])
    assert r.returncode == 0, r.stderr
    measured = parse_truth(r.stdout)["early"][0]
    t = row(r.report, "early")
    assert t["status"] == "Exited"
    assert t["cpu_percent"] is None
    assert abs(t["cpu_total_ns"] - measured) <= 0.05 * measured, (t["cpu_total_ns"], measured)
    within_rounding(t["alloc_bytes"], 12345, 1, "early alloc")
    # freed by main after the thread ended
    assert t["dealloc_bytes"] == 0 and row(r.report, "main")["dealloc_bytes"] >= 12345


def test_cancelled_thread_keeps_its_final_figures():
    """A thread cancelled while it burns CPU ends through glibc's forced unwinding, not by
    returning: the trampoline's cleanup still folds its final CPU time, not the last sample's."""
    r = run([target("cpu_burn"), "cancelled"], env={"HOTPATH_THREADS_INTERVAL_MS": "2000"})
    assert r.returncode == 0, r.stderr
    measured, was_cancelled = parse_truth(r.stdout)["cancelled"]
    assert was_cancelled == 1
    t = row(r.report, "cancelled")
    assert t["status"] == "Exited"
    assert measured > 0.2e9, measured
    assert abs(t["cpu_total_ns"] - measured) <= 0.05 * measured, (t["cpu_total_ns"], measured)
    within_rounding(t["alloc_bytes"], 12345, 1, "cancelled alloc")


def test_names_stay_with_their_threads_when_records_are_recycled():
    """Past the exited-threads limit records are recycled, and glibc gives a joined thread's
    pthread_t to the next one: a thread's name landed on an exited thread's record (a JVM making
    and joining 2,000 threads showed 174 of them unnamed, and some under another's index)."""
    r = run([target("many_threads"), "1500", "churn"], env={"HOTPATH_THREADS_INTERVAL_MS": "10"})
    assert r.returncode == 0, r.stderr
    kept = [t for t in rows(r.report) if t["index"] > 0 and "exited)" not in t["name"]]
    assert len(kept) >= 900, len(kept)
    wrong = [(t["index"], t["name"]) for t in kept if t["name"] != f"churn-{t['index'] - 1}"]
    assert not wrong, (len(wrong), wrong[:5])


def test_thread_names():
    r = run([target("names")])
    assert r.returncode == 0, r.stderr
    names = {t["name"]: t for t in rows(r.report)}
    for expected in ("main", "setname-1", "prctl-2", "thread_3"):
        assert expected in names, (expected, list(names))
    # quotes and a backslash survive; bytes that are not UTF-8 become U+FFFD; é stays
    assert 'q"b\\\ufffd\ufffd\u00e9' in names, list(names)
    assert names["main"]["index"] == 0
    assert names["thread_3"]["index"] == 3
    assert sorted(t["index"] for t in rows(r.report)) == [0, 1, 2, 3, 4]


def test_thread_names_in_the_text_table():
    r = run([target("names")], fmt="table", env={"HOTPATH_LIMIT": "0"})
    text = r.stderr.decode("utf-8")
    for name in ("| main ", "| setname-1 ", "| prctl-2 ", "| thread_3 ", '| q"b\\\ufffd\ufffd\u00e9 '):
        assert name in text, (name, text)


def test_cxx_library_dlopened_by_a_c_program():
    """A C program loads a C++ library locally: libstdc++ is then out of RTLD_NEXT's reach, and
    the library's operator new and delete must still reach the real ones (it crashed before)."""
    plain = bare([target("dl_cxx")])
    r = run([target("dl_cxx")])
    assert plain.returncode == 0, plain.stderr
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout, (r.stdout, plain.stdout)
    main = row(r.report, "main")
    assert main["alloc_count"] >= 2 * (10000 + 100), main   # a string and an array per round
    # ~4,320 bytes a round (a 4,000-byte array, a 64-575-byte string): libstdc++'s operators,
    # not the profiler's own heap (mimalloc defines them too), and counted once
    assert 40_000_000 <= main["alloc_bytes"] <= 50_000_000, main
    assert 0 <= main["alloc_bytes"] - main["dealloc_bytes"] < 1_000_000, main


def test_cxx_new_and_delete_are_counted():
    r = run([target("cxx_alloc")])
    assert r.returncode == 0, r.stderr
    requested, released = parse_truth(r.stdout)["cxx-worker"]
    t = row(r.report, "cxx-worker")
    within_rounding(t["alloc_bytes"], requested, t["alloc_count"], "cxx alloc")
    # std::thread's state is made by main and deleted by the worker: one block more freed
    assert t["dealloc_count"] == t["alloc_count"] + 1
    assert released <= t["dealloc_bytes"] <= released + t["dealloc_count"] * ROUNDING + 64


def test_allocation_edge_cases_behave_as_without_profiler():
    plain = bare([target("alloc_edge")])
    profiled = run([target("alloc_edge")])
    assert plain.returncode == 0, plain.stdout
    assert profiled.returncode == 0, profiled.stdout
    assert plain.stdout == profiled.stdout
    assert_header_sums(profiled.report)


def test_allocation_edge_cases_when_every_block_is_sampled():
    # every block is then sampled, remembered and forgotten: realloc, calloc, alignment, usable
    # sizes and frees must still behave as without the profiler
    plain = bare([target("alloc_edge")])
    profiled = run([target("alloc_edge")], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1"})
    assert profiled.returncode == 0, profiled.stdout
    assert plain.stdout == profiled.stdout
    assert_header_sums(profiled.report)
    assert profiled.report["functions_alloc"]["samples_count"] > 100


def test_two_thousand_threads():
    r = run([target("many_threads"), "2000"], env={"HOTPATH_EXITED_THREADS_LIMIT": "5000"})
    assert r.returncode == 0, r.stderr
    report = r.report
    workers = [t for t in rows(report) if t["index"] > 0]
    assert len(workers) == 2000, len(workers)
    assert sorted(t["index"] for t in workers) == list(range(1, 2001))
    for t in workers:
        assert t["status"] == "Exited"
        assert t["alloc_count"] == 3 and t["dealloc_count"] == 1, t
        within_rounding(t["alloc_bytes"], 3000, 3, "worker alloc")
    assert_header_sums(report)
    main = row(report, "main")
    assert main["dealloc_count"] >= 4000


FOREIGN_ALLOCATORS = {
    "glibc": "",
    "jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
    "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
}


def test_cxx_under_jemalloc_and_tcmalloc_matches_glibc():
    """jemalloc and tcmalloc define operator new/delete themselves: still counted, once."""
    from harness import LIB
    seen = {}
    for name, lib in FOREIGN_ALLOCATORS.items():
        r = run([target("cxx_alloc")], env={"LD_PRELOAD": f"{LIB} {lib}".strip()})
        assert r.returncode == 0, (name, r.stderr)
        requested, released = parse_truth(r.stdout)["cxx-worker"]
        t = row(r.report, "cxx-worker")
        seen[name] = (t["alloc_count"], t["dealloc_count"])
        # size classes differ by allocator: within a quarter of the request, never below it
        assert requested <= t["alloc_bytes"] <= requested * 1.25, (name, t)
        assert released <= t["dealloc_bytes"] <= released * 1.25 + 64, (name, t)
        assert abs(t["diff_bytes"]) <= 64, (name, t)
        assert_header_sums(r.report)
    assert len(set(seen.values())) == 1, seen


def test_twenty_thousand_threads_fold_and_memory_stays_bounded():
    memory = {}
    for n in (2000, 20000):
        r = run([target("many_threads"), str(n), "named"], timeout=300)
        assert r.returncode == 0, r.stderr
        report = r.report
        assert_header_sums(report)
        header = report["threads"]["header"]
        assert header["thread_count"] == n + 1
        workers = [t for t in rows(report) if t["name"] != "main"]
        assert sum(t["alloc_count"] for t in workers) == 3 * n, (    # all the work, folded or not
            n, sum(t["alloc_count"] for t in workers), row(report, "main")["alloc_count"])
        assert sum(t["dealloc_count"] for t in workers) == n
        folded = [t for t in workers if "exited_threads" in t]
        assert sum(t["exited_threads"] for t in folded) + len(workers) - len(folded) == n
        assert len(workers) - len(folded) <= 1000                     # HOTPATH_EXITED_THREADS_LIMIT
        if n == 20000:
            names = {t["name"].split(" (")[0] for t in folded}
            assert "thread_*" in names and "pool" in names and "worker-*" in names, names
        memory[n] = report["profiler"]["memory_bytes"]
    # ten times the threads, not ten times the memory: exited records are folded and recycled
    assert memory[20000] < 2 * memory[2000] + 2 * 1024 * 1024, memory
    assert memory[20000] < 16 * 1024 * 1024, memory


def test_exited_threads_limit_setting():
    r = run([target("many_threads"), "100"], env={"HOTPATH_EXITED_THREADS_LIMIT": "10"})
    workers = [t for t in rows(r.report) if t["name"] != "main"]
    folded = [t for t in workers if "exited_threads" in t]
    assert len(workers) - len(folded) <= 10
    assert sum(t["exited_threads"] for t in folded) >= 90
    assert_header_sums(r.report)


# glibc gives threads arenas of their own, each reserving 64 MiB of address space, and how many a
# run makes depends on its threads' timing: a run of 120 threads had up to nine more than one of
# 20, 5.6 MiB per thread of a slope that measures the profiler. One arena keeps glibc's share of
# the address space the same in every run.
ONE_ARENA = {"GLIBC_TUNABLES": "glibc.malloc.arena_max=1"}


def footprint(n, preload):
    """VmSize and VmRSS (kB) of thread_footprint with n threads parked, bare or preloaded."""
    d = tempfile.mkdtemp(prefix="hotpath-footprint-")
    try:
        cmd = [target("thread_footprint"), str(n), d]
        r = run(cmd, fmt="none", env=ONE_ARENA) if preload else bare(cmd, env=ONE_ARENA)
        assert r.returncode == 0, r.stderr
        words = r.stdout.decode().split()
        return int(words[3]), int(words[5])
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_each_thread_costs_little_memory():
    # Per thread of a pool (each opens a file, takes a new lock, is sampled): what the preload adds
    # to its address space and resident memory, from the slope between 20 and 120 threads, so the
    # profiler's fixed cost cancels. Once this was 33 MiB of address space (a heap segment of the
    # profiler's allocator per thread, glibc arenas) and 370 KB resident (libunwind's table).
    slopes = {}
    for preload in (False, True):
        (v1, r1), (v2, r2) = footprint(20, preload), footprint(120, preload)
        slopes[preload] = ((v2 - v1) / 100, (r2 - r1) / 100)
    vsz_added = slopes[True][0] - slopes[False][0]
    rss_added = slopes[True][1] - slopes[False][1]
    assert vsz_added < 2048, (vsz_added, slopes)
    assert rss_added < 128, (rss_added, slopes)


def test_a_one_thread_program_stays_single_threaded_through_its_first_interval():
    """An allocation or CPU sample started the sampler thread 20 ms into a process: glibc then
    took every lock, getc and read of the program with atomics (an uncontended lock pair 3 ns,
    then 12). A program of one thread that computes and allocates now keeps glibc's
    single-threaded state until its first interval has passed; past it, the sampler runs, and
    the report still counts the program's allocations."""
    for _ in range(5):     # its early part must end well inside the interval: a loaded machine tries again
        r = run([target("one_thread"), "700"])
        assert r.returncode == 0, r.stderr[-300:]
        early, late = (line.split() for line in r.stdout.decode().splitlines())
        assert early[0] == "early" and late[0] == "late", r.stdout
        if float(early[3]) < 150:
            break
    assert float(early[3]) < 150, f"the early part took {early[3]} ms: a machine too slow to tell"
    assert early[1:3] == ["1", "1"], f"tasks, glibc single-threaded early: {early[1:3]}"
    assert late[1:3] == ["2", "0"], f"tasks, glibc single-threaded late: {late[1:3]}"
    assert len(r.reports) == 2, sorted(r.reports)      # its /bin/true reports too
    parent = next(rep for rep in r.reports.values() if rep["command"] != "true")
    assert row(parent, "main")["alloc_count"] >= 60 * 2000 / 10, row(parent, "main")["alloc_count"]
    assert bare([target("one_thread"), "100"]).stdout.decode().split()[1:3] == ["1", "1"]


def test_the_profilers_own_dlopen_never_reaches_the_programs_allocator():
    """The sampler's first step dlopens mimalloc, and glibc's dlopen allocates with the global
    malloc while it holds the loader's locks. That malloc was the program's: redis-server hung
    about one start in thirty, its jemalloc making a thread under jemalloc's lock (pthread_create
    waits for the loader's TLS lock) while the sampler's dlopen waited for that lock. An
    allocator preloaded after hotpath counts the calls a hotpath thread makes while the loader
    adds an object: there must be none, and mimalloc must have been loaded all the same."""
    shim = target("libhp_loader_malloc.so")
    r = run([target("one_thread"), "700"], env={"LD_PRELOAD": LIB + ":" + shim})
    assert r.returncode == 0, r.stderr[-300:]
    lines = [x.split() for x in r.stderr.decode().splitlines() if x.startswith("loader_malloc: ")]
    assert len(lines) == 2, r.stderr[-500:]          # the program and its /bin/true
    parent = max(lines, key=lambda w: int(w[4]))
    assert parent[4] == "1", f"the sampler loaded no mimalloc: {parent}"
    assert all(w[2] == "0" for w in lines), f"the loader allocated from the program's heap for hotpath: {lines}"


def test_mmapped_blocks_count_their_usable_size():
    # their usable size is read from their headers (glibc's IS_MMAPPED layout): exactly what
    # malloc_usable_size says, allocated and freed
    r = run([target("alloc_mmapped")])
    assert r.returncode == 0, r.stderr
    usable = int(r.stdout.split()[1])
    t = row(r.report, "mapper")
    assert t["alloc_count"] == 4 and t["dealloc_count"] == 4, t
    assert t["alloc_bytes"] == usable and t["dealloc_bytes"] == usable, (t, usable)
