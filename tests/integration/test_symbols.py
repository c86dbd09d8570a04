"""Names in the CPU profile against known truth: demangled C++ names, a library unloaded with
dlclose before the report still named, file:line from DWARF, the SVG flame graph
(HOTPATH_CPU_FLAMEGRAPH, hotpath-run --flamegraph) parsed as XML, and fork children that name
their frames from the symbol tables their parent kept."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from harness import RUN, clean_env, run, target, validate

SVG = "{http://www.w3.org/2000/svg}"


CPU_ONLY = {"HOTPATH_REPORT": "functions_cpu"}


def functions(report):
    return {f["name"]: f for f in report["functions_cpu"]["functions"]}


def test_cxx_names_are_demangled():
    # 1.5 s of CPU at 99 Hz, about 150 samples, a third or more in each of the method and the
    # template: 15 samples each is far below either share
    r = run([target("cxx_hot"), "1.5"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    fns = functions(r.report)
    spin, churn = fns.get("ns::Hot::spin(int)"), fns.get("double ns::churn<double>(double)")
    assert spin and churn, list(fns)[:10]
    assert spin["self_count"] >= 15 and churn["self_count"] >= 15, (spin, churn)
    assert spin["module"] == "cxx_hot"
    assert not any(name.startswith("_Z") for name in fns), list(fns)


def test_report_of_a_dying_process_is_demangled_without_locations():
    # SIGTERM while the program burns CPU: the report is written while the process dies by a
    # signal, so no libdw (it mallocs; the thread the signal hit may hold the malloc lock), but
    # the demangler (stack only) still runs
    with tempfile.TemporaryDirectory() as d:
        env = clean_env({**CPU_ONLY, "HOTPATH_OUTPUT_FORMAT": "json",
                         "HOTPATH_OUTPUT_PATH": os.path.join(d, "r.json")})
        p = subprocess.Popen([target("cxx_hot"), "30"], env=env, stdout=subprocess.DEVNULL)
        time.sleep(1.5)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == -signal.SIGTERM
        report = validate(json.load(open(os.path.join(d, "r.json"))))
    assert report["ended_by_signal"] == "SIGTERM"
    fns = functions(report)
    assert "ns::Hot::spin(int)" in fns and "double ns::churn<double>(double)" in fns, list(fns)[:10]
    assert all(f["file"] is None and f["line"] is None for f in fns.values()), fns


def test_unloaded_library_still_named():
    # 1 s of CPU in the library's static plugin_spin, then dlclose, then 0.5 s in the program
    r = run([target("dl_unload"), "1"], env=CPU_ONLY)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert b"unloaded" in r.stdout
    fns = functions(r.report)
    spin = fns.get("plugin_spin")
    assert spin, list(fns)[:10]
    assert spin["module"] == "libhp_plugin.so" and spin["self_count"] >= 40, spin
    assert spin["file"].endswith("tests/targets/dl/plugin_burn.c"), spin   # its DWARF too
    assert fns["after_unload_spin"]["self_count"] >= 15
    assert "[?]" not in fns or fns["[?]"]["self_count"] <= 5, fns.get("[?]")


def test_file_and_line_from_debug_info():
    # cpu_ratio is built with -g: hot_a is defined on this line of cpu_ratio.c
    src = os.path.join(os.path.dirname(os.path.dirname(__file__)), "targets", "cpu_ratio.c")
    line = next(i for i, l in enumerate(open(src), 1) if "hot_a(uint64_t units)" in l)
    r = run([target("cpu_ratio"), "0.5"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    a = functions(r.report)["hot_a"]
    assert a["file"] and os.path.isabs(a["file"]) and os.path.samefile(a["file"], src), a
    assert a["line"] == line, (a, line)
    b = functions(r.report)["hot_b"]
    assert b["file"].endswith("cpu/cpu_ratio_b.c"), b
    # no debug information: no location (the vDSO has none)
    for f in r.report["functions_cpu"]["functions"]:
        if f["module"] == "linux-vdso.so.1":
            assert f["file"] is None and f["line"] is None, f


def test_libdw_is_loaded_only_for_a_module_with_dwarf():
    # file:line needs libdw and its libraries (a dlopen of a few hundred microseconds in every
    # process that reports), which a module without DWARF, and without a debug file by build ID,
    # cannot use: most programs a distribution ships. The loader's own log says what was loaded.
    env = {**CPU_ONLY, "LD_DEBUG": "files"}
    r = run([target("cpu_ratio"), "0.3"], env=env)
    assert r.returncode == 0 and b"libdw.so.1" in r.stderr, r.stderr[-2000:]
    assert functions(r.report)["hot_a"]["line"], functions(r.report)["hot_a"]
    prog = os.path.join(tempfile.mkdtemp(prefix="hotpath-nodwarf-"), "cpu_ratio")
    shutil.copy(target("cpu_ratio"), prog)
    subprocess.run(["strip", "--strip-debug", prog], check=True)
    r = run([prog, "0.3"], env=env)
    assert r.returncode == 0, r.stderr
    a = functions(r.report)["hot_a"]       # still named, from its symbol table
    assert a["file"] is None and a["line"] is None, a
    assert b"libdw.so.1" not in r.stderr, [line for line in r.stderr.splitlines() if b"libdw" in line]


def test_a_program_run_by_the_loader_is_named():
    # `ld.so ./prog`: /proc/self/exe is the loader and the program's own map has no name, so its
    # symbols were read from the loader's file and every frame of its showed as [prog]
    r = run(["/lib64/ld-linux-x86-64.so.2", target("cpu_ratio"), "0.3"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    fns = functions(r.report)
    assert "hot_a" in fns and fns["hot_a"]["module"] == "cpu_ratio", list(fns)
    assert fns["hot_a"]["file"].endswith("cpu_ratio.c"), fns["hot_a"]
    # the loader under another name (a copy, a distribution's own path) is known all the same
    loader = os.path.join(tempfile.mkdtemp(prefix="hotpath-loader-"), "myld.so")
    shutil.copy("/lib64/ld-linux-x86-64.so.2", loader)
    r = run([loader, target("cpu_ratio"), "0.3"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    fns = functions(r.report)
    assert "hot_a" in fns and fns["hot_a"]["module"] == "cpu_ratio", list(fns)


def mutex_rows_of_stripped(name, locks_count):
    """Run a stripped copy of a target: its mutex rows with that many acquisitions."""
    prog = os.path.join(tempfile.mkdtemp(prefix="hotpath-stripped-"), name)
    shutil.copy(target(name), prog)
    subprocess.run(["strip", prog], check=True)
    r = run([prog])
    assert r.returncode == 0, r.stderr
    return [m for m in r.report["mutexes"]["rows"] if m["locks_count"] == locks_count]


def test_a_stripped_program_that_rewrites_its_title_is_named_as_started():
    # frames without a symbol are named program+0xoffset, by the program's name at start: nginx,
    # postgres and sshd write their title over argv[0], which then read "rker: idle+0x11bc"
    rows = mutex_rows_of_stripped("title_rewrite", 1)
    assert len(rows) == 1, rows
    stack = rows[0]["call_stack"]
    assert stack and all(f.startswith("title_rewrite+0x") for f in stack), stack
    assert "static" not in rows[0]["name"], rows[0]                 # a heap lock
    # a global lock without its symbol is told from a heap lock first locked at the same place
    rows = mutex_rows_of_stripped("locks_cache", 1000)
    assert len(rows) == 1 and rows[0]["symbol"] is None, rows
    assert rows[0]["name"].endswith(", static in locks_cache"), rows[0]["name"]


def test_glibc_named_from_its_debug_file_without_locations():
    # glibc's detached debug file (libc6-dbg, a test dependency here, as valgrind brings it on
    # developers' machines) holds its full symbol table: its static functions (_int_malloc) are
    # named from it, as perf and gdb name them. Its DWARF is compressed: libdw inflated all of it,
    # 40 ms of every report with a libc frame, so glibc's frames have no locations; the program's
    # own keep theirs.
    with open("/lib/x86_64-linux-gnu/libc.so.6", "rb") as f:          # the case: its debug file
        elf = f.read()
    note = b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00"  # NT_GNU_BUILD_ID, 20 bytes
    build_id = elf[elf.index(note) + len(note):][:20].hex()
    debug = f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug"
    assert os.path.exists(debug), f"{debug} missing: scripts/install-deps.sh installs libc6-dbg"
    dynamic = subprocess.run(["nm", "-D", "/lib/x86_64-linux-gnu/libc.so.6"], capture_output=True, text=True)
    assert " _int_malloc\n" not in dynamic.stdout, "libc.so.6 exports _int_malloc: the case is gone"
    r = run([target("libc_churn"), "malloc", "0.5"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    fns = functions(r.report)
    libc = [f for f in fns.values() if f["module"] == "libc.so.6"]
    assert any(f["name"] in ("_int_malloc", "_int_free") and f["self_count"] > 0 for f in libc), list(fns)
    assert all(f["file"] is None and f["line"] is None for f in libc), libc
    assert fns["main"]["file"].endswith("/libc_churn.c"), fns["main"]
    # the debug file names sem_post only with its version: shown without it
    r = run([target("libc_churn"), "sem", "0.3"], env=CPU_ONLY)
    assert r.returncode == 0, r.stderr
    fns = functions(r.report)
    assert "sem_post" in fns or "sem_wait" in fns, list(fns)
    assert not any("@" in name for name in fns), list(fns)


def read_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg", root.tag
    return root


def test_flamegraph_setting():
    d = tempfile.mkdtemp(prefix="hotpath-flame-")
    r = run([target("cpu_ratio"), "1"], env={**CPU_ONLY, "HOTPATH_CPU_FLAMEGRAPH": os.path.join(d, "cpu-%p.svg"),
                                             "HOTPATH_CPU_FOLDED": os.path.join(d, "cpu-%p.folded")})
    assert r.returncode == 0, r.stderr
    pid = next(iter(r.reports))
    svg = os.path.join(d, f"cpu-{pid}.svg")
    assert (os.stat(svg).st_mode & 0o777) == 0o600
    root = read_svg(svg)
    titles = [g.find(SVG + "title").text for g in root.iter(SVG + "g")]
    assert len(titles) == len(root.findall(f".//{SVG}rect")), "one rect per frame"
    # the root frame holds every sample of the folded file
    total = sum(int(l.rsplit(" ", 1)[1]) for l in open(os.path.join(d, f"cpu-{pid}.folded")))
    assert f"all ({total} samples, 100.0%)" in titles, titles[-3:]
    assert any(t.startswith("hot_a (") for t in titles) and any(t.startswith("worker (") for t in titles)


def test_hotpath_run_flamegraph():
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([RUN, "--flamegraph", "out.svg", "-f", "json", "-o", os.path.join(d, "r.json"),
                            target("cxx_hot"), "0.5"],
                           cwd=d, env=clean_env(CPU_ONLY, preload=False), capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        validate(json.load(open(os.path.join(d, "r.json"))))
        root = read_svg(os.path.join(d, "out.svg"))
        titles = [t.text for t in root.iter(SVG + "title")]
        assert any(t.startswith("ns::Hot::spin(int) (") for t in titles), titles


def test_flamegraph_with_the_profile_off():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "off.svg")
        r = run([target("cpu_ratio"), "0.1"], env={**CPU_ONLY, "HOTPATH_CPU_FLAMEGRAPH": path, "HOTPATH_CPU_HZ": "0"})
        assert r.returncode == 0, r.stderr
        root = read_svg(path)
        assert not root.findall(f".//{SVG}rect")
        assert any("HOTPATH_CPU_HZ=0" in (t.text or "") for t in root.iter(SVG + "text"))


def libc_debug_file():
    """libc6-dbg's file for this libc, named by its build id, or None."""
    out = subprocess.run(["readelf", "-n", "/lib/x86_64-linux-gnu/libc.so.6"], capture_output=True, text=True).stdout
    ids = [line.split(":", 1)[1].strip() for line in out.splitlines() if "Build ID:" in line]
    path = f"/usr/lib/debug/.build-id/{ids[0][:2]}/{ids[0][2:]}.debug" if ids else None
    return path if path and os.path.exists(path) else None


class Opens:
    """Counts the opens of one file (inotify's IN_OPEN), by any process, while it is watched. A
    thread reads each event as it comes: inotify merges an event into an identical one not yet
    read."""
    IN_OPEN = 0x20

    def __init__(self, path):
        import ctypes
        import threading
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init()
        assert self.fd >= 0 and libc.inotify_add_watch(self.fd, path.encode(), self.IN_OPEN) >= 0
        self.n, self.stop = 0, threading.Event()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        import select
        while not self.stop.is_set():
            if not select.select([self.fd], [], [], 0.02)[0]:
                continue
            data, off = os.read(self.fd, 65536), 0
            while off < len(data):   # struct inotify_event: wd, mask, cookie, len, name[len]
                self.n += 1
                off += 16 + int.from_bytes(data[off + 12:off + 16], "little")

    def count(self):
        time.sleep(0.1)
        self.stop.set()
        self.reader.join()
        os.close(self.fd)
        return self.n


def test_fork_children_inherit_the_parents_symbol_tables():
    # alloc_sites forks one child at once, and three more once the parent has run a sampler pass
    # after a fork: that pass loads the modules' tables into the set the parent keeps, which the
    # later children inherit with the memory. Each child names its allocations the same either
    # way; glibc's debug file (libc6-dbg), whose table names libc's frames, is opened by the
    # first child and by the parent's pass, not once more by each later child or the parent's
    # own report.
    debug = libc_debug_file()
    if not debug:
        import pytest
        pytest.skip("no libc6-dbg file for this libc")
    opens = Opens(debug)
    try:
        # passes every 50 ms: the parent's 600 ms between forks hold many
        r = run([target("alloc_sites"), "forks"],
                env={"HOTPATH_ALLOC_SAMPLE_BYTES": "1", "HOTPATH_THREADS_INTERVAL_MS": "50"})
    finally:
        n = opens.count()
    assert r.returncode == 0 and r.stdout == b"done\n", r.stderr
    assert len(r.reports) == 5, r.reports.keys()
    children = [rep for pid, rep in sorted(r.reports.items())
                if any(f["name"] == "leak_one" for f in rep["functions_alloc"]["functions"])]
    assert len(children) == 4, [list(rep["functions_alloc"]["functions"]) for rep in r.reports.values()]

    def named(rep):   # qsort's own allocations vary with the passes it makes: names, not counts
        return sorted((f["name"], f.get("file"), f.get("line")) for f in rep["functions_alloc"]["functions"])

    for child in children:
        counts = {f["name"]: f["alloc_count"] for f in child["functions_alloc"]["functions"]}
        assert counts["leak_one"] == 300 and counts["copy_name"] == 100, counts
        assert named(child) == named(children[0])
        cpu = {f["name"] for f in child["functions_cpu"]["functions"]}
        # msort_with_tmp, qsort's static helper, has its name only in glibc's debug file
        assert "sort_for_a_while" in cpu and any(n.startswith("msort_with_tmp") for n in cpu), sorted(cpu)
    # each child burns CPU in libc's qsort, whose frames its report names: without the kept set
    # each of the four children opens the file
    assert 1 <= n <= 2, f"{n} opens of {debug}"
