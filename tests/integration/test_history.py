"""Time series: the growth flag on real programs (a leak, a churner, a producer/consumer pair),
/history on the metrics server, and the HTML report rendered by headless Chromium (the
screenshot is kept in build/test-artifacts/)."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import jsonschema

from harness import ROOT, RUN, SCHEMA, clean_env, run, row, target
from live import Live, curl, get_json

ARTIFACTS = os.path.join(ROOT, "build", "test-artifacts")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HISTORY_VALIDATOR = jsonschema.Draft202012Validator({**SCHEMA["$defs"]["history"], "$defs": SCHEMA["$defs"]})


def growing(report):
    return sorted(r["name"] for r in report["threads"]["rows"] if r["diff_growing"])


# these runs last 3 s: a flag needs a window shorter than that (the default, 30 s, is warm-up's)
SHORT = {"HOTPATH_GROWTH_WINDOW_S": "2"}


def test_a_leaking_thread_is_flagged_and_only_it_per_thread_diff():
    rep = run([target("leak_trend"), "leak"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0", **SHORT}).report
    assert rep["threads"]["history"]["trend_basis"] == "diff"
    assert rep["threads"]["history"]["growth_window_s"] == 2
    assert growing(rep) == ["leaker"], [(r["name"], r["diff_trend_bytes_per_min"]) for r in rep["threads"]["rows"]]
    leaker, churner = row(rep, "leaker"), row(rep, "churner")
    # 64 KiB every 100 ms is 37.5 MiB a minute; a loaded VM stretches the sleeps, so wide bounds
    assert 10 * 2**20 < leaker["diff_trend_bytes_per_min"] < 60 * 2**20, leaker["diff_trend_bytes_per_min"]
    assert abs(churner["diff_trend_bytes_per_min"]) < 2**20
    assert churner["alloc_bytes"] >= 30 * 65536 and churner["diff_bytes"] < 65536


def test_a_leaking_thread_is_flagged_and_only_it_live_by_allocating_thread():
    rep = run([target("leak_trend"), "leak"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "16384", **SHORT}).report
    assert rep["threads"]["history"]["trend_basis"] == "live_by_allocating_thread"
    assert growing(rep) == ["leaker"], [(r["name"], r["diff_trend_bytes_per_min"]) for r in rep["threads"]["rows"]]


def test_a_producer_whose_consumer_frees_everything_is_not_flagged_with_call_sites():
    rep = run([target("leak_trend"), "prodcons"], env=SHORT).report
    assert rep["threads"]["history"]["trend_basis"] == "live_by_allocating_thread"
    producer = row(rep, "producer")
    assert producer["diff_bytes"] >= 30 * 65536          # its Diff does climb ...
    assert growing(rep) == []                             # ... but nothing it allocated stays
    # per-thread Diff alone would blame the producer: why the basis matters
    rep = run([target("leak_trend"), "prodcons"], env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0", **SHORT}).report
    assert rep["threads"]["history"]["trend_basis"] == "diff"
    assert growing(rep) == ["producer"]


def test_three_seconds_of_steady_growth_is_warm_up_under_the_default_window():
    # the leaker's 3 s of steady growth is what a JIT's warm-up looks like: not flagged at 30 s
    for env in ({"HOTPATH_ALLOC_SAMPLE_BYTES": "0"}, {}):
        rep = run([target("leak_trend"), "leak"], env=env).report
        assert rep["threads"]["history"]["growth_window_s"] == 30
        assert growing(rep) == [], [(r["name"], r["diff_trend_window_s"]) for r in rep["threads"]["rows"]]
        leaker = row(rep, "leaker")
        assert leaker["diff_trend_bytes_per_min"] > 2**20                 # the slope is still there
        assert 1.5 < leaker["diff_trend_window_s"] < 30, leaker
    # and the text says over how long it looked
    r = run([target("leak_trend"), "leak", "3"], fmt="table", env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0", **SHORT})
    line = [l for l in r.stderr.decode().splitlines() if l.startswith("history: ")][0]
    assert re.search(r"growing \(Diff\) over \d+\.\d\d s \(flagged from 2 s\): leaker \(\+\S+ \S+/min over \d", line), line


def test_the_report_states_the_resolution_and_the_basis():
    r = run([target("leak_trend"), "leak", "1"], fmt="table", env={"HOTPATH_ALLOC_SAMPLE_BYTES": "0"})
    text = r.stderr.decode()
    line = [l for l in text.splitlines() if l.startswith("history: ")]
    assert len(line) == 1, text
    assert "at 250.00 ms resolution" in line[0] and "growing (Diff)" in line[0], line[0]
    rep = run([target("leak_trend"), "leak", "1"], env={"HOTPATH_HISTORY_MB": "0"}).report
    assert rep["threads"]["history"] is None
    assert all(r["diff_trend_bytes_per_min"] is None and not r["diff_growing"] for r in rep["threads"]["rows"])


def test_history_endpoint_serves_every_thread_series():
    with Live() as p:
        time.sleep(1.6)
        status, h = get_json(p.url("/history"))
        assert status == 200
        HISTORY_VALIDATOR.validate(h)
        times = h["time_ns"]
        assert len(times) >= 4 and times == sorted(times)
        assert h["summary"]["resolution_ms"] == 250 and h["samples_per_point"] == 1
        assert h["summary"]["memory_bytes"] <= h["summary"]["budget_bytes"] == 16 * 2**20
        assert len(h["rss_bytes"]["mean"]) == len(times)
        names = sorted(t["name"] for t in h["threads"])
        assert names == ["main", "worker"], names
        worker = next(t for t in h["threads"] if t["name"] == "worker")
        for key in ("cpu_percent", "alloc_bytes", "dealloc_bytes", "diff_bytes"):
            s = worker[key]
            assert len(s["mean"]) == len(s["min"]) == len(s["max"])
            assert worker["first_point"] + len(s["mean"]) <= len(times)
            assert all(lo <= m <= hi for lo, m, hi in zip(s["min"], s["mean"], s["max"]))
        assert max(worker["cpu_percent"]["mean"]) > 3           # it burns some CPU
        alloc = worker["alloc_bytes"]["mean"]
        assert alloc == sorted(alloc) and alloc[-1] > 0         # a cumulative counter
        status, head, body = curl(p.url("/"))
        assert b'"/history"' in body
    with Live(env={"HOTPATH_HISTORY_MB": "0"}) as p:
        status, head, body = curl(p.url("/history"))
        assert status == 404 and json.loads(body)["error"] == "view not available: history"


class Dom(html.parser.HTMLParser):
    """Elements of interest in Chromium's DOM dump, with the element they are in."""

    def __init__(self):
        super().__init__()
        self.stack, self.found, self.data_of = [], [], {}
        self.capture = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.found.append((tag, a, [x[1] for x in self.stack]))
        if tag not in ("meta", "br", "link", "img", "input", "hr"):
            self.stack.append((tag, a))
        if tag == "script" and a.get("id") == "report-data":
            self.capture = "report"
            self.data_of["report"] = ""

    def handle_endtag(self, tag):
        if any(t == tag for t, _ in self.stack):
            while self.stack and self.stack.pop()[0] != tag:
                pass
        self.capture = None

    def handle_data(self, data):
        if self.capture:
            self.data_of[self.capture] += data

    def inside(self, tag, cls, container_id):
        return [a for t, a, parents in self.found
                if t == tag and cls in a.get("class", "").split() and any(p.get("id") == container_id for p in parents)]


def chromium(*args, timeout=90):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "chromium is not installed (scripts/install-deps.sh)"
    home = tempfile.mkdtemp(prefix="hotpath-chromium-")
    try:
        return subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={home}", *args], capture_output=True,
                              timeout=timeout, env={**os.environ, "HOME": home})
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_html_report_renders_in_headless_chromium():
    out = tempfile.mkdtemp(prefix="hotpath-html-")
    try:
        page = os.path.join(out, "report-%p.html")
        r = run([target("live"), "2500"], env={"HOTPATH_HTML_PATH": page})
        rep = r.report
        path = os.path.join(out, f"report-{rep['pid']}.html")
        assert os.stat(path).st_mode & 0o777 == 0o600
        with open(path, encoding="utf-8") as f:
            source = f.read()
        for external in ("http://", "https://", "src=", "@import", "url("):   # self-contained
            assert external not in source.replace('xmlns="http://www.w3.org/2000/svg"', ""), external
        dump = chromium("--dump-dom", "file://" + path)
        assert dump.returncode == 0, dump.stderr[-2000:]
        dom = Dom()
        dom.feed(dump.stdout.decode("utf-8"))
        embedded = json.loads(dom.data_of["report"])
        assert embedded["pid"] == rep["pid"]
        series = embedded["threads"]["history"]["series_count"]
        assert series == 2                                   # main and worker
        assert len(dom.inside("polyline", "series", "cpu-chart")) == series
        assert len(dom.inside("path", "series", "diff-chart")) == series
        assert len(dom.inside("polyline", "rss", "rss-chart")) == 1
        # the script ran: tables built from the report, one row per thread, lock and resource
        rows = [a for t, a, parents in dom.found if t == "tr" and any(p.get("id") == "threads-table" for p in parents)]
        assert len(rows) == len(embedded["threads"]["rows"]) + 1            # + the header row
        heads = [a for t, a, parents in dom.found if t == "th" and any(p.get("id") == "mutexes-table" for p in parents)]
        assert heads and all("data-col" in a for a in heads)
        for way in ("read", "write"):     # two tables, as the text's io-read and io-write
            io_rows = [a for t, a, parents in dom.found
                       if t == "tr" and any(p.get("id") == f"io-{way}-table" for p in parents)]
            used = [r for r in embedded["io"]["resources"]
                    if r[way]["op_count"] or r[way]["error_count"] or (way == "write" and r["sync_count"])]
            assert len(io_rows) == len(used) + 1
        if embedded["functions_cpu"]["samples_count"]:
            assert any(t == "svg" for t, a, parents in dom.found if any(p.get("id") == "flame-cpu" for p in parents))
        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "html-report.png")
        if os.path.exists(shot):
            os.unlink(shot)
        s = chromium(f"--screenshot={shot}", "--window-size=1280,2400", "--hide-scrollbars", "file://" + path)
        assert s.returncode == 0 and os.path.getsize(shot) > 20000, s.stderr[-2000:]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_html_report_marks_the_growing_thread():
    out = tempfile.mkdtemp(prefix="hotpath-html-")
    try:
        rep = run([target("leak_trend"), "leak"],
                  env={"HOTPATH_HTML_PATH": os.path.join(out, "r.html"), "HOTPATH_ALLOC_SAMPLE_BYTES": "0",
                       **SHORT}).report
        assert growing(rep) == ["leaker"]
        dom = Dom()
        with open(os.path.join(out, "r.html"), encoding="utf-8") as f:
            dom.feed(f.read())
        marked = dom.inside("path", "growing", "diff-chart")
        assert [a["data-thread"] for a in marked] == ["leaker"]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_hotpath_run_html_writes_the_page_where_it_was_started():
    d = tempfile.mkdtemp(prefix="hotpath-html-")
    try:
        p = subprocess.run([RUN, "--html", "page-%p.html", "-f", "none", "--", target("leak_trend"), "leak", "1"],
                           cwd=d, env=clean_env(preload=False), capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        pid = int(p.stdout.split()[1])
        with open(os.path.join(d, f"page-{pid}.html"), encoding="utf-8") as f:
            page = f.read()
        assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
        assert 'id="cpu-chart"' in page and 'id="report-data"' in page
    finally:
        shutil.rmtree(d, ignore_errors=True)
