"""harness.py — runs real programs under libhotpath.so and hands the tests their reports.

Every JSON report read here is validated against report/report.schema.json."""
import json
import os
import shutil
import subprocess
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "build", "libhotpath.so")
TARGETS = os.path.join(ROOT, "build", "targets")
RUN = os.path.join(ROOT, "hotpath-run.sh")

with open(os.path.join(ROOT, "report", "report.schema.json")) as f:
    SCHEMA = json.load(f)
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def target(name):
    return os.path.join(TARGETS, name)


# make's own variables: a test run from make would hand its jobserver to the programs under test
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT", "MAKE_TERMERR")


def clean_env(extra=None, preload=True):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HOTPATH_") and k != "LD_PRELOAD" and k not in MAKE_VARS}
    if preload:
        env["LD_PRELOAD"] = LIB
    env.update(extra or {})
    return env


class Run:
    """One finished process: exit code, output, and the reports it left (by pid)."""

    def __init__(self, proc, reports):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.reports = reports

    @property
    def report(self):
        assert len(self.reports) == 1, f"expected one report, got {len(self.reports)}: stderr={self.stderr!r}"
        return next(iter(self.reports.values()))


def validate(report):
    VALIDATOR.validate(report)
    return report


def run(cmd, env=None, fmt="json", timeout=120, preload=True, input=None):
    """Run cmd under the preload, reports as JSON files in a fresh directory (one per pid, its last
    image's)."""
    out_dir = tempfile.mkdtemp(prefix="hotpath-test-")
    try:
        extra = {"HOTPATH_OUTPUT_FORMAT": fmt}
        if fmt.startswith("json"):
            extra["HOTPATH_OUTPUT_PATH"] = os.path.join(out_dir, "%p.json")
        extra.update(env or {})
        proc = subprocess.run(cmd, env=clean_env(extra, preload), capture_output=True, timeout=timeout,
                              input=input)
        reports, images = {}, {}
        for name in os.listdir(out_dir):
            with open(os.path.join(out_dir, name), "rb") as f:
                data = f.read()
            report = json.loads(data.decode("utf-8"))   # strict: the bytes must be UTF-8
            # PID.json, or PID.N.json for the image after the N-th exec: the last image's is kept
            parts = name.split(".")
            pid, image = int(parts[0]), int(parts[1]) if len(parts) == 3 else 0
            validate(report)
            if image >= images.get(pid, -1):
                reports[pid], images[pid] = report, image
        return Run(proc, reports)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def bare(cmd, timeout=120, input=None, env=None):
    return subprocess.run(cmd, env=clean_env(env, preload=False), capture_output=True, timeout=timeout, input=input)


def rows(report):
    return report["threads"]["rows"]


def row(report, name):
    found = [r for r in rows(report) if r["name"] == name]
    assert len(found) == 1, f"no single row named {name!r} in {[r['name'] for r in rows(report)]}"
    return found[0]


def assert_header_sums(report):
    header = report["threads"]["header"]
    for key in ("alloc_bytes", "dealloc_bytes", "diff_bytes", "alloc_count", "dealloc_count"):
        total = sum(r[key] for r in rows(report))
        assert header[key] == total, f"header {key} {header[key]} != sum of rows {total}"
    # a folded row stands for several exited threads
    assert header["thread_count"] == sum(r.get("exited_threads", 1) for r in rows(report))
    assert header["diff_bytes"] == header["alloc_bytes"] - header["dealloc_bytes"]
