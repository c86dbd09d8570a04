"""Allocation call sites against known truth: byte shares by function, live bytes of a leak,
exact figures when every allocation is sampled (calls, live bytes after realloc, live bytes by
allocating thread when another thread frees), the text table, inclusive attribution, the
setting that turns the view off, and a fork child that starts afresh."""
import os
import statistics
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from harness import clean_env, row, run, target


def usable(n):
    """glibc's usable size of malloc(n) on x86_64 (chunks of 16 bytes, 8 of header)."""
    return max(32, (n + 8 + 15) & ~15) - 8


def sites(report):
    return report["functions_alloc"]


def fn(report, name):
    found = [f for f in sites(report)["functions"] if f["name"] == name]
    assert len(found) == 1, f"{name!r}: {[f['name'] for f in sites(report)['functions'][:20]]}"
    return found[0]


def thread(report, name):
    found = [t for t in sites(report)["threads"] if t["name"] == name]
    assert len(found) == 1, f"{name!r}: {sites(report)['threads']}"
    return found[0]


def test_byte_shares_by_function():
    # 100,000 blocks each: alloc_big's 36,008 usable bytes are 89.98% of the bytes, alloc_small's
    # 4,008 are 10.02%. At one sample per 512 KiB that is ~6,870 and ~765 samples: the share's
    # standard error is ~0.35 points, so ±5 points is over 10 standard errors.
    r = run([target("alloc_sites"), "shares", "100000"])
    assert r.returncode == 0 and r.stdout == b"done\n", r.stderr
    s = sites(r.report)
    assert s["enabled"] and s["sample_bytes"] == 524288 and s["attribution"] == "exclusive", s
    assert 6500 <= s["samples_count"] <= 8700, s["samples_count"]
    big, small = fn(r.report, "alloc_big"), fn(r.report, "alloc_small")
    share = 100 * big["alloc_bytes"] / (big["alloc_bytes"] + small["alloc_bytes"])
    assert abs(share - 89.98) <= 5, (big, small)
    assert abs(big["alloc_percent"] - 89.98) <= 5, big
    # calls estimated too: 100,000 each (±10%, 3 standard errors for alloc_small)
    assert 90000 <= big["alloc_count"] <= 110000, big
    assert 87000 <= small["alloc_count"] <= 113000, small
    assert big["module"] == "alloc_sites" and big["live_bytes"] == 0 and small["live_bytes"] == 0
    # the allocator itself is never the call site (exclusive: the first frame outside it)
    assert not any(f["module"].startswith(("libc.so", "libhotpath")) for f in s["functions"]), s["functions"]
    totals = [f["alloc_bytes"] for f in s["functions"]]
    assert totals == sorted(totals, reverse=True)
    # the main thread made every allocation
    assert thread(r.report, "main")["alloc_bytes"] >= big["alloc_bytes"] + small["alloc_bytes"]


def test_leak_live_bytes():
    # 64 live blocks of 64 KiB, one sample per 64 KiB on average: each block is picked with
    # probability 1 - 1/e, and the estimate of the 4 MiB has a standard error of 9.5%. One run is
    # inside ±25% 99.1% of the time; the median of three fails one time in 4,000.
    lives = []
    for _ in range(3):
        r = run([target("alloc_sites"), "leaky"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "65536"})
        assert r.returncode == 0, r.stderr
        leak = fn(r.report, "leaky")
        assert leak["alloc_bytes"] == leak["live_bytes"], leak   # nothing it made was freed
        assert fn(r.report, "churn")["live_bytes"] == 0
        lives.append(leak["live_bytes"])
    assert abs(statistics.median(lives) - 4 * 2**20) <= 0.25 * 4 * 2**20, lives


def test_every_allocation_sampled_is_exact():
    r = run([target("alloc_sites"), "exact"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1"})
    assert r.returncode == 0, r.stderr
    s = sites(r.report)
    assert s["untracked_samples_count"] == 0, s
    keep = fn(r.report, "keep_list")
    assert keep["alloc_count"] == 1000 and keep["live_count"] == 1000, keep
    assert keep["alloc_bytes"] == keep["live_bytes"] == 1000 * usable(100), keep
    churn = fn(r.report, "churn")
    assert churn["alloc_count"] == 5000 and churn["live_bytes"] == 0 and churn["live_count"] == 0, churn
    assert churn["alloc_bytes"] == 5000 * usable(50), churn
    # realloc from 16 to 65,536 bytes: 13 allocations, only the last block still live
    grow = fn(r.report, "grow")
    assert grow["alloc_count"] == 13 and grow["live_count"] == 1, grow
    assert grow["live_bytes"] == usable(65536), grow
    # freed by another thread: gone from the call site and from the allocating thread
    produce = fn(r.report, "produce_one")
    assert produce["alloc_count"] == 2000 and produce["live_bytes"] == 0, produce
    leak = fn(r.report, "leak_one")
    assert leak["alloc_count"] == 300 and leak["live_bytes"] == 300 * usable(1000), leak
    producer, leaker = thread(r.report, "producer"), thread(r.report, "leaker")
    assert producer["live_bytes"] == 0 and producer["alloc_bytes"] >= 2000 * usable(200), producer
    assert 300 * usable(1000) <= leaker["live_bytes"] <= 300 * usable(1000) + 4096, leaker
    assert leaker["index"] > 0 and leaker["os_tid"] > 0, leaker
    # the threads view's Diff says the opposite for the producer: its frees happened elsewhere
    assert row(r.report, "producer")["diff_bytes"] >= 2000 * usable(200), row(r.report, "producer")


def test_inclusive_attribution():
    r = run([target("alloc_sites"), "exact"],
            env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1", "HOTPATH_ALLOC_CUMULATIVE": "true"})
    assert r.returncode == 0, r.stderr
    assert sites(r.report)["attribution"] == "inclusive"
    main_fn = fn(r.report, "main")
    # main is on the stack of keep_list, churn and grow (and of nothing the threads did)
    assert main_fn["alloc_count"] >= 1000 + 5000 + 13, main_fn
    assert fn(r.report, "keep_list")["alloc_count"] == 1000
    # malloc's own frames (libc) count inclusive too, but never the profiler's
    assert not any(f["module"].startswith("libhotpath") for f in sites(r.report)["functions"])


def test_text_table():
    r = run([target("alloc_sites"), "shares", "20000"], fmt="table", env={"HOTPATH_FUNCTIONS_LIMIT": "1"})
    assert r.returncode == 0, r.stderr
    lines = r.stderr.decode().splitlines()
    title = [l for l in lines if l.startswith("functions-alloc - Allocated bytes by function (sampled).")]
    assert len(title) == 1, r.stderr
    assert "one per 512.0 KB on average; exclusive; live " in title[0], title
    assert title[0].endswith("(1/2)"), title
    at = lines.index(title[0])
    assert [c.strip() for c in lines[at + 2].split("|")[1:-1]] == ["Function", "Bytes", "Calls", "Live", "% Total"]
    assert lines[at + 4].split("|")[1].strip() == "alloc_big", lines[at:at + 6]


def test_off_by_setting():
    r = run([target("alloc_sites"), "shares", "1000"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0"})
    assert r.returncode == 0 and r.stdout == b"done\n", r.stderr
    s = sites(r.report)
    assert not s["enabled"] and s["functions"] == [] and s["samples_count"] == 0, s


def test_fork_child_starts_afresh():
    # the child frees the parent's sampled blocks (no figure goes below zero, nothing crashes)
    # and reports only its own allocations
    r = run([target("alloc_sites"), "fork"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1"})
    assert r.returncode == 0 and r.stdout == b"done\n", r.stderr
    assert len(r.reports) == 2, r.reports.keys()
    parent = [rep for rep in r.reports.values() if any(f["name"] == "keep_list" for f in sites(rep)["functions"])]
    child = [rep for rep in r.reports.values() if any(f["name"] == "leak_one" for f in sites(rep)["functions"])]
    assert len(parent) == 1 and len(child) == 1 and parent[0] is not child[0]
    assert fn(parent[0], "keep_list")["live_bytes"] == 1000 * usable(100)
    assert not any(f["name"] == "keep_list" for f in sites(child[0])["functions"])
    leak = fn(child[0], "leak_one")
    assert leak["alloc_count"] == 300 and leak["live_bytes"] == 300 * usable(1000), leak
    assert sites(child[0])["live_bytes"] <= 300 * usable(1000) + 65536, sites(child[0])
    # the child's emptied tables are given back, not written: with every allocation sampled the
    # live table reserves 32 MB, which the child must not make resident
    assert child[0]["profiler"]["memory_bytes"] < 8 * 2**20, child[0]["profiler"]


def folded_weights(text):
    lines = text.decode().splitlines()
    assert lines, text
    weights = {}
    for line in lines:
        stack, _, count = line.rpartition(" ")
        weights[stack] = weights.get(stack, 0) + int(count)
    return weights


def test_folded_stacks_and_flame_graph():
    d = tempfile.mkdtemp()
    folded, svg = os.path.join(d, "alloc-%p.folded"), os.path.join(d, "alloc-%p.svg")
    r = run([target("alloc_sites"), "shares", "50000"],
            env={"HOTPATH_ALLOC_FOLDED": folded, "HOTPATH_ALLOC_FLAMEGRAPH": svg})
    assert r.returncode == 0, r.stderr
    (pid,) = r.reports
    with open(folded.replace("%p", str(pid)), "rb") as f:
        weights = folded_weights(f.read())
    # outermost first, the profiler's own frames (its malloc hook) left out
    big = sum(w for s, w in weights.items() if s.endswith("main;alloc_big"))
    small = sum(w for s, w in weights.items() if s.endswith("main;alloc_small"))
    assert not any("libhotpath" in s or s.endswith(";malloc") for s in weights), list(weights)[:5]
    # the same bytes as the section's (the folded weights are the estimated bytes)
    assert big == fn(r.report, "alloc_big")["alloc_bytes"] and small == fn(r.report, "alloc_small")["alloc_bytes"]
    assert abs(100 * big / (big + small) - 89.98) <= 5, (big, small)
    root = ET.parse(svg.replace("%p", str(pid))).getroot()
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert any(t and t.startswith("alloc_big") for t in titles), titles[:10]


def test_hotpath_run_alloc_flamegraph():
    d = tempfile.mkdtemp()
    svg = os.path.join(d, "a.svg")
    here = os.path.dirname(os.path.abspath(__file__))
    launcher = os.path.join(here, "..", "..", "hotpath-run.sh")
    p = subprocess.run([launcher, "-f", "none", "--alloc-flamegraph", svg, target("alloc_sites"), "shares", "5000"],
                       env=clean_env(preload=False), capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == b"done\n", p.stderr
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert any((t.text or "").startswith("alloc_big") for t in root.iter("{http://www.w3.org/2000/svg}title"))


def test_off_gives_empty_folded_file_and_a_flame_graph_saying_why():
    d = tempfile.mkdtemp()
    folded, svg = os.path.join(d, "a.folded"), os.path.join(d, "a.svg")
    r = run([target("alloc_sites"), "shares", "100"],
            env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0", "HOTPATH_ALLOC_FOLDED": folded, "HOTPATH_ALLOC_FLAMEGRAPH": svg})
    assert r.returncode == 0, r.stderr
    assert open(folded, "rb").read() == b""
    assert b"HOTPATH_ALLOC_SAMPLE_BYTES=0" in open(svg, "rb").read()
    ET.parse(svg)


def test_sampling_work_counts_as_the_profilers_cpu():
    # a sample (its stack walk, its tables, libm's log for the next interval) is the profiler's
    # work: CPU samples taken in it are the profiler's, not the program's time in hp_* functions
    r = run([target("libc_churn"), "malloc", "0.5"],
            env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1", "HOTPATH_REPORT": "functions_cpu,functions_alloc"})
    assert r.returncode == 0, r.stderr
    cpu = r.report["functions_cpu"]
    own = sum(f["self_count"] for f in cpu["functions"] if f["name"].startswith(("hp_", "unw_", "_ULx86")))
    assert cpu["profiler_samples_count"] > 0, cpu["profiler_samples_count"]
    assert own < cpu["profiler_samples_count"], [(f["name"], f["self_count"]) for f in cpu["functions"]]
