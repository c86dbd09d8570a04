"""Locks view against known truth: lock counts, contention, hold times, naming, merging, return
codes, condition waits, rwlock modes, and the lock a deadlocked thread waits on."""
import os
import sys

from harness import bare, row, rows, run, target

MS = 1_000_000


def mutexes(report, name=None):
    found = report["mutexes"]["rows"]
    if name is None:
        return found
    named = [m for m in found if m["name"] == name]
    assert named, f"no mutex named {name!r} in {[m['name'] for m in found]}"
    return named


def mutex(report, name):
    named = mutexes(report, name)
    assert len(named) == 1, f"{len(named)} rows named {name!r}"
    return named[0]


def program_holds(r):
    """The holds of cache_lock as locks_cache timed them itself: (total ns, max ns)."""
    value, total, longest = map(int, r.stdout.split())
    assert value == 1000, r.stdout
    return total, longest


def test_contended_global_cache_lock():
    r = run([target("locks_cache")])
    assert r.returncode == 0, r.stderr
    total, longest = program_holds(r)
    m = mutex(r.report, "cache_lock")
    # the program's own file by its path, not /proc/self/exe, where its symbols are read
    assert m["symbol"] == "cache_lock" and m["module"] == os.path.realpath(target("locks_cache")), m
    # a thread's stack ends at its start routine: not the profiler's trampoline, libc's start_thread
    assert m["call_stack"] == ["worker"], m
    assert m["locks_count"] == 1000, m
    assert m["contended_count"] > 0, m
    assert m["wait_total_ns"] > 0 and m["wait_max_ns"] > 0, m
    assert m["holds_timed_count"] > 0
    # each hold is at least 1 ms; a sampled average lies between that and the longest hold
    assert 0.98 * MS <= m["hold_avg_ns"] <= 1.02 * longest, (m["hold_avg_ns"], longest)
    assert 0.98 * MS <= m["hold_p95_ns"] <= m["hold_max_ns"] <= 1.02 * longest + MS, (m, longest)
    assert m["owner_changes_count"] >= 1
    # the threads that waited carry the wait
    waited = sum(t.get("lock_wait_ns", 0) for t in rows(r.report))
    assert waited >= m["wait_total_ns"] * 0.99, (waited, m["wait_total_ns"])


def test_default_sampling_and_every_hold_timed():
    r = run([target("locks_cache")])
    m = mutex(r.report, "cache_lock")
    assert r.report["mutexes"]["hold_sampling_period"] == 20
    # one in 20 at random gaps (1 to 39): about 50 of 1000, a standard deviation of about 4
    assert 1000 // 20 - 25 <= m["holds_timed_count"] <= 1000 // 20 + 25, m["holds_timed_count"]
    r = run([target("locks_cache")], env={"HOTPATH_MUTEXES_TIME_SAMPLING_RATE": "1"})
    m = mutex(r.report, "cache_lock")
    assert m["holds_timed_count"] == 1000
    # every hold timed: the program's own sum, plus the hooks' nanoseconds around each hold (the
    # profiler's clock is the TSC, calibrated against CLOCK_MONOTONIC: allow 0.5% either way)
    total, longest = program_holds(r)
    assert 0.995 * total <= m["hold_total_ns"] <= 1.005 * total + 5 * MS, (m["hold_total_ns"], total)
    assert 0.995 * longest <= m["hold_max_ns"] <= 1.005 * longest + MS, (m["hold_max_ns"], longest)
    r = run([target("locks_cache")], env={"HOTPATH_TIME_SAMPLING_RATE": "0"})
    m = mutex(r.report, "cache_lock")
    assert m["holds_timed_count"] == 0 and m["hold_avg_ns"] is None and m["locks_count"] == 1000


def test_text_table():
    r = run([target("locks_cache")], fmt="table")
    text = r.stderr.decode()
    assert "mutexes - Wait and hold times of mutexes." in text
    header = [l for l in text.splitlines() if l.startswith("| Mutex ")]
    assert header and "| Inst " in header[0] and "| Wait total |" in header[0], header
    assert any(l.startswith("| cache_lock ") and "| 1000 " in l for l in text.splitlines()), text
    # no rwlock: one line, not an empty table
    assert "rw_locks: none used" in text.splitlines(), text


def test_mutex_kinds_and_timed_calls_return_what_they_return_bare():
    """Robust (owner died, not recoverable), priority-protect and timed calls with bad clocks or
    timeouts: a hook that tried the lock first changed these results and deadlocked a robust
    mutex made unrecoverable."""
    cmd = [target("locks_kinds")]
    plain = bare(cmd, timeout=60)
    r = run(cmd, timeout=60)
    assert plain.returncode == 0 and r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout, (r.stdout, plain.stdout)
    text = plain.stdout.decode()
    assert "lock, not recoverable                    ENOTRECOVERABLE" in text, text
    assert "clocklock, clock 999                     EINVAL" in text, text
    assert sum(row["locks_count"] for row in mutexes(r.report, "m")) > 0   # one row per init


def test_condition_wait_is_not_hold_time():
    r = run([target("locks_cond")], env={"HOTPATH_MUTEXES_TIME_SAMPLING_RATE": "1"})
    assert r.returncode == 0, r.stderr
    m = mutex(r.report, "queue_lock")
    assert m["locks_count"] == 20, m
    assert m["holds_timed_count"] == 20
    # the consumer's return from each wait takes the lock back, but it did not lock it: the
    # producer's lock is each item's one change of owner (the consumer's next lock follows its
    # own return from the wait)
    assert 1 <= m["owner_changes_count"] <= m["locks_count"] // 2 + 1, m
    assert m["hold_max_ns"] < 10 * MS, m["hold_max_ns"]       # consumer waits ~50 ms per item
    conds = [c for c in r.report["mutexes"]["cond_vars"] if c["name"] == "queue_cond"]
    assert len(conds) == 1, r.report["mutexes"]["cond_vars"]
    c = conds[0]
    assert c["waits_count"] >= 10 and c["wait_total_ns"] >= 400 * MS, c
    consumer = row(r.report, "consumer")
    assert consumer["cond_wait_count"] == c["waits_count"]
    assert consumer["cond_wait_ns"] >= 400 * MS
    assert consumer["blocked_on"] is None


def test_sampled_holds_do_not_line_up_with_the_program_s_pattern():
    r = run([target("locks_sampling")])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [b"20000", b"20000", b"2000"], r.stdout
    # 20,000 acquisitions each, one in 20 timed on average: about 1,000 (40,000 mutex acquisitions
    # share the thread's count, so each lock's share varies a little more)
    for name in ("lock_a", "lock_b"):
        m = mutex(r.report, name)
        assert m["locks_count"] == 20000 and 700 <= m["holds_timed_count"] <= 1300, m
    rw = [x for x in r.report["rw_locks"]["rows"] if x["name"] == "table_rw"][0]
    assert rw["read"]["locks_count"] == 18000 and rw["write"]["locks_count"] == 2000, rw
    assert 600 <= rw["read"]["holds_timed_count"] <= 1200, rw["read"]
    assert 50 <= rw["write"]["holds_timed_count"] <= 170, rw["write"]


def test_a_fork_child_counts_only_its_own_reads():
    r = run([target("locks_sampling"), "fork"])
    assert r.returncode == 0 and len(r.reports) == 2, r.stderr[-300:]
    reads = sorted([x for x in rep["rw_locks"]["rows"] if x["name"] == "table_rw"][0]["read"]["locks_count"]
                   for rep in r.reports.values())
    assert reads == [5, 18000], reads


def test_rwlock_reads_and_writes_counted_exactly():
    r = run([target("locks_rw")])
    assert r.returncode == 0, r.stderr
    found = [x for x in r.report["rw_locks"]["rows"] if x["name"] == "table_lock"]
    assert len(found) == 1, r.report["rw_locks"]["rows"]
    rw = found[0]
    assert rw["read"]["locks_count"] == 4000, rw["read"]
    assert rw["write"]["locks_count"] == 201, rw["write"]   # 200 by the writer, 1 by main
    # readers share the lock: no owner to change (writers have one)
    assert rw["read"]["owner_changes_count"] is None and rw["write"]["owner_changes_count"] >= 0, rw
    r = run([target("locks_rw")], fmt="table")
    lines = r.stderr.decode().splitlines()
    # the text lists a lock's modes that waited; a run where no reader or writer did is one line
    if "rw_locks: 1 lock, 4201 acquisitions, none waited" not in lines:
        assert any(l.startswith("| table_lock ") and "| read " in l and "| 4000 " in l for l in lines) or \
            any(l.startswith("| table_lock ") and "| write " in l and "| 201 " in l for l in lines), lines


def test_acquisitions_and_owner_changes_match_the_program_s_own_count():
    """The program counts, inside each critical section, its acquisitions and how often the
    acquirer was not the last one: four threads on one mutex (lock and trylock) and one rwlock,
    then two threads in turn over 5,000 mutexes, more than there are shard sets (the later ones
    count on the record), then over one mutex destroyed and made again."""
    r = run([target("locks_owners")], timeout=180)
    assert r.returncode == 0, r.stderr[-300:]
    truth = {w[0]: list(map(int, w[1:])) for w in (l.split() for l in r.stdout.decode().splitlines())}
    m = mutex(r.report, "turn_lock")
    assert [m["locks_count"], m["owner_changes_count"]] == truth["turn_lock"], (m, truth)
    assert truth["turn_lock"][1] > 0, truth
    rw = [x for x in r.report["rw_locks"]["rows"] if x["name"] == "turn_rw"][0]
    writes, changes, reads = truth["turn_rw"]
    assert [rw["write"]["locks_count"], rw["write"]["owner_changes_count"]] == [writes, changes], (rw, truth)
    assert rw["read"]["locks_count"] == reads, (rw, truth)
    conns = [x for x in mutexes(r.report) if x["name"].startswith("conns")]
    assert len(conns) == 5000, len(conns)
    assert sum(x["locks_count"] for x in conns) == truth["conns"][0] == 2 * 4 * 5000, truth
    assert sum(x["owner_changes_count"] for x in conns) == truth["conns"][1], truth
    # a lock destroyed and made again is a new lock: its first owner is no change
    again = mutexes(r.report, "again")
    assert [sum(x["locks_count"] for x in again), sum(x["owner_changes_count"] for x in again)] == truth["again"], \
        (again, truth)
    assert sum(x["instances"] for x in again) == 3, again


def test_an_exception_out_of_dl_iterate_phdr_leaves_the_thread_taking_stacks():
    """Inside dl_iterate_phdr a thread takes no stacks (the loader's lock); a C++ exception thrown
    out of the callback must end that as it unwinds, or the thread's later locks go unnamed."""
    cmd = [target("cxx_phdr_throw")]
    plain = bare(cmd)
    r = run(cmd)
    assert r.returncode == plain.returncode == 0 and r.stdout == plain.stdout, r.stderr[-300:]
    found = mutexes(r.report)
    assert [m["call_stack"][:2] for m in found] == [["lock_after(pthread_mutex_t*)", "main"]], found


def test_return_codes_and_recursive_mutex():
    plain = bare([target("locks_semantics")])
    r = run([target("locks_semantics")], env={"HOTPATH_MUTEXES_TIME_SAMPLING_RATE": "1"})
    assert plain.stdout == r.stdout == b"ok\n", (plain.stdout, r.stdout)
    assert r.returncode == 0
    rec = mutex(r.report, "rec_lock")
    assert rec["locks_count"] == 10 and rec["recursive_relocks_count"] == 20, rec
    assert rec["holds_timed_count"] == 10          # outermost lock to last unlock
    assert mutex(r.report, "check_lock")["locks_count"] == 1     # EDEADLK relock not counted
    busy = mutex(r.report, "busy_lock")
    assert busy["locks_count"] == 1 and busy["contended_count"] == 0, busy   # EBUSY not counted
    timed = mutex(r.report, "timed_lock")
    assert timed["timeouts_count"] == 2, timed
    assert timed["timeout_wait_ns"] >= 60 * MS, timed
    assert timed["locks_count"] == 2, timed


def test_ten_thousand_heap_mutexes_make_one_row():
    r = run([target("locks_many")])
    assert r.returncode == 0, r.stderr
    ms = [m for m in mutexes(r.report) if "open_conn" in m["name"]]
    assert len(ms) == 1, [(m["name"], m["instances"]) for m in mutexes(r.report)]
    m = ms[0]
    assert m["instances"] == 10000 and m["locks_count"] == 10000, m
    # the stack ends at main: _start and libc's start of main are every stack's, not the lock's
    assert m["symbol"] is None and m["call_stack"] == ["open_conn", "main"], m
    r = run([target("locks_many")], env={"HOTPATH_LOCKS_ITER": "true"})
    ms = [m for m in mutexes(r.report) if "open_conn" in m["name"]]
    assert len(ms) == 10000 and all(m["instances"] == 1 and m["locks_count"] == 1 for m in ms)


def test_destroyed_and_reinitialised_mutex_is_a_new_lock():
    r = run([target("locks_reuse")])
    assert r.returncode == 0, r.stderr
    rs = mutexes(r.report, "reused_lock")
    assert sorted(m["locks_count"] for m in rs) == [2, 3], rs
    assert sum(m["instances"] for m in rs) == 2
    first = [m for m in rs if m["locks_count"] == 3][0]
    assert first["destroyed_count"] == 1


def test_one_address_reused_many_times():
    # merged: the 200 later locks share their creation stack, so one row counts them all, and
    # all but the last were destroyed
    r = run([target("locks_reuse"), "200"])
    assert r.returncode == 0, r.stderr
    rs = mutexes(r.report, "reused_lock")
    assert sorted(m["locks_count"] for m in rs) == [2, 3, 200], rs
    later = [m for m in rs if m["locks_count"] == 200][0]
    assert later["instances"] == 200 and later["destroyed_count"] == 199, later
    # one row each: every instance keeps its row, none falls into <other>
    r = run([target("locks_reuse"), "200"], env={"HOTPATH_LOCKS_ITER": "true"})
    assert r.returncode == 0, r.stderr
    rs = mutexes(r.report, "reused_lock")
    assert len(rs) == 202 and sum(m["locks_count"] for m in rs) == 205, len(rs)
    assert sum(m["destroyed_count"] for m in rs) == 201
    assert not r.report["mutexes"]["overflowed"] and not any(m["other"] for m in mutexes(r.report))


def test_one_wrapper_two_callers_two_rows():
    r = run([target("locks_wrapper")])
    assert r.returncode == 0, r.stderr
    names = {m["name"]: m for m in mutexes(r.report)}
    alpha = [m for n, m in names.items() if n.startswith("lock_it ← caller_alpha")]
    beta = [m for n, m in names.items() if n.startswith("lock_it ← caller_beta")]
    assert len(alpha) == 1 and len(beta) == 1, list(names)
    assert alpha[0]["locks_count"] == 7 and beta[0]["locks_count"] == 5
    assert alpha[0]["call_stack"][:2] == ["lock_it", "caller_alpha"]
    # where each frame's function is defined (the target is built with -g), the innermost in the name
    assert alpha[0]["call_stack_locations"][:2] == ["locks_wrapper.c:8", "locks_wrapper.c:19"], alpha[0]
    assert alpha[0]["name"].endswith("(locks_wrapper.c:8)"), alpha[0]["name"]
    assert len(alpha[0]["call_stack_locations"]) == len(alpha[0]["call_stack"])
    # stacks that part below the frames a name shows: each row still has a name of its own (a
    # table's rows told apart; Prometheus refuses a scrape with two series of one name and labels)
    relayed = [m for n, m in names.items() if n.startswith("lock_it ← relay_inner ← relay_outer")]
    assert sorted(m["locks_count"] for m in relayed) == [2, 3], list(names)
    assert any("origin_x" in m["name"] for m in relayed) and any("origin_y" in m["name"] for m in relayed), relayed
    assert len(names) == len(mutexes(r.report)), [m["name"] for m in mutexes(r.report)]


def test_deadlock_report_names_the_lock_each_thread_waits_on():
    r = run([target("locks_deadlock")], timeout=30)
    assert r.stdout == b"deadlocked\n"
    assert r.returncode == -15, r.returncode
    a = row(r.report, "thread-a")
    b = row(r.report, "thread-b")
    assert a["blocked_on"] == {"kind": "mutex", "name": "lock_b", "address": a["blocked_on"]["address"]}, a
    assert b["blocked_on"]["kind"] == "mutex" and b["blocked_on"]["name"] == "lock_a", b
    assert row(r.report, "main")["blocked_on"] is None
    # the locks' own rows count the waits in progress: the program waits 300 ms, then ends
    for name in ("lock_a", "lock_b"):
        m = mutex(r.report, name)
        assert m["waiting_now_count"] == 1 and 200 * MS <= m["waiting_now_ns"] <= 10_000 * MS, m
        assert m["contended_count"] == 0 and m["wait_total_ns"] == 0, m   # none has ended
    r = run([target("locks_deadlock")], fmt="table", timeout=30)
    text = r.stderr.decode()
    assert "2 threads blocked now" in text, text
    rows_ = [l for l in text.splitlines() if l.startswith("| lock_a ") or l.startswith("| lock_b ")]
    assert len(rows_) == 2 and all(l.rstrip(" |").endswith(" ms") for l in rows_), rows_


def test_locks_first_seen_in_a_signal_handler_that_interrupted_the_loader():
    # the handler's first sight of a lock takes a stack; inside dl_iterate_phdr that hung for good
    # (libunwind waits on the loader's lock, with every signal blocked: only SIGKILL ended it)
    for _ in range(2):
        r = run([target("locks_in_handler")], timeout=60)
        assert r.returncode == 0 and r.stdout == b"bad=0\n", (r.returncode, r.stdout, r.stderr[-300:])
        assert sum(m["locks_count"] for m in mutexes(r.report)) >= 500


def test_condition_waits_refused_before_waiting_change_nothing():
    expected = bare([target("locks_edges"), "cond-errors"])
    r = run([target("locks_edges"), "cond-errors"], env={"HOTPATH_MUTEXES_TIME_SAMPLING_RATE": "1"})
    assert r.returncode == expected.returncode == 0 and r.stdout == expected.stdout == b"22\n22\n1\n", r.stdout
    assert not [c for c in r.report["mutexes"]["cond_vars"] if c["name"] == "refused_cond"], r.report["mutexes"]
    assert row(r.report, "main")["cond_wait_count"] == 0
    m = mutex(r.report, "refused_lock")
    assert m["locks_count"] == 1 and m["holds_timed_count"] == 1, m     # the hold went on


def test_a_wait_in_a_signal_handler_gives_back_the_wait_it_interrupted():
    r = run([target("locks_edges"), "nested"], timeout=30)
    assert r.returncode == -15 and r.stdout == b"terminating\n", (r.returncode, r.stdout)
    t = row(r.report, "blocked")
    assert t["blocked_on"] is not None and t["blocked_on"]["name"] == "outer_lock", t
    assert mutex(r.report, "inner_lock")["contended_count"] == 1
    assert mutex(r.report, "outer_lock")["waiting_now_count"] == 1


def test_a_contended_wait_is_in_the_report_however_the_image_ends():
    # the wait is recorded after the unlock: _exit before it must still show it, and a fork
    # child, which did not wait, must not (the harness keeps an exec's last image only)
    r = run([target("locks_kept_wait"), "_exit"], timeout=30)
    assert r.returncode == 4, r.stderr[-300:]
    m = mutex(r.report, "kept_lock")
    assert m["locks_count"] == 2 and m["contended_count"] == 1 and m["wait_total_ns"] >= 20 * MS, m
    r = run([target("locks_kept_wait"), "fork"], timeout=30)
    assert r.returncode == 0 and r.stdout == b"child 3\n" and len(r.reports) == 2, r.stderr[-300:]
    parent, child = sorted(r.reports.values(), key=lambda rep: rep["pid"])
    m = mutex(parent, "kept_lock")
    assert m["locks_count"] == 2 and m["contended_count"] == 1, m
    assert not [x for x in child["mutexes"]["rows"] if x["contended_count"]], child["mutexes"]["rows"]


def test_locks_sections_can_be_left_out():
    r = run([target("locks_cache")], env={"HOTPATH_REPORT": "all,-mutexes,-rw_locks"})
    assert "mutexes" not in r.report and "rw_locks" not in r.report
    r = run([target("locks_cache")], env={"HOTPATH_REPORT": "mutexes"})
    assert set(r.report) & {"threads", "mutexes", "rw_locks"} == {"mutexes"}


def test_a_fork_child_shows_only_the_locks_it_used():
    """A fork child keeps its parent's lock records with their counters at zero: Python's child
    listed _PyRuntime+440 and +528 twice, once with 0 locks (the address made again after the
    fork), found by a sweep."""
    script = ("import os, threading\n"
              "t = threading.Thread(target=lambda: sum(range(100000))); t.start(); t.join()\n"
              "pid = os.fork()\n"
              "if pid == 0:\n    sum(range(1000)); os._exit(0)\n"
              "os.waitpid(pid, 0)\n")
    r = run([sys.executable, "-c", script])
    assert r.returncode == 0 and len(r.reports) == 2, r.stderr[-300:]
    for report in r.reports.values():
        rows = report["mutexes"]["rows"]
        assert rows and all(x["locks_count"] or x["contended_count"] or x["timeouts_count"] for x in rows), \
            [(x["name"], x["locks_count"]) for x in rows]


def test_rows_of_one_name_are_numbered_in_the_text():
    """Two locks of one name (a mutex destroyed and made again at its address) made two rows that
    read the same; the text numbers the second as Prometheus labels do. Each is waited for once:
    the text lists only locks that waited."""
    r = run([target("live"), "300", "remade-waited"], fmt="table", env={"HOTPATH_MUTEXES_LIMIT": "0"})
    assert r.returncode == 0, r.stderr[-300:]
    names = [line.split("|")[1].strip() for line in r.stderr.decode().splitlines()
             if line.startswith("| lock")]
    assert sorted(names) == ["lock", "lock #2"], names


def test_timeouts_are_told_in_the_text():
    """A timed lock that gave up waited, but acquired nothing, so no row's Wait has it: the text
    showed no trace of two timed-out waits of 30 ms and more (found by a sweep). The title says
    how many timed out and how long they waited."""
    r = run([target("locks_semantics")], fmt="table")
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stdout
    title = [line for line in r.stderr.decode().splitlines() if line.startswith("mutexes - ")]
    assert len(title) == 1 and "; 2 timed out after " in title[0] and " ms of waiting" in title[0], title
