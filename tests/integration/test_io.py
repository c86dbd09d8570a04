"""I/O view against known truth: files, TCP and Unix sockets, pipes, stdout, sendfile, merged short
connections, errors, dup2 and reused descriptor numbers, fortified programs, closefrom."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import bare, clean_env, run, target, validate


def truth(stdout):
    out = {}
    for line in stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "truth":
            out[parts[1]] = int(parts[2])
    return out


def resources(report):
    return report["io"]["resources"]


def res(report, name, accepted=None, kind=None):
    found = [r for r in resources(report) if r["name"] == name
             and (accepted is None or r["accepted"] == accepted) and (kind is None or r["kind"] == kind)]
    assert len(found) == 1, f"no single resource {name!r} (accepted={accepted}) in " \
                            f"{[(r['name'], r['kind'], r['accepted']) for r in resources(report)]}"
    return found[0]


def io_run(args, env=None):
    r = run([target("io_known")] + args, env=env)
    assert r.returncode == 0, (r.returncode, r.stderr)
    return r, r.report, truth(r.stdout)


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="hotpath-io-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def test_file_10mib_write_fsync_fread():
    with TempDir() as d:
        path = os.path.join(d, "data.bin")
        _, report, t = io_run(["file", path])
        assert t["bytes"] == 10485760
        f = res(report, path)
        assert f["kind"] == "file"
        assert f["write"]["op_count"] == 2560
        assert f["write"]["bytes"] == 10485760
        assert f["read"]["bytes"] == 10485760
        assert f["sync_count"] == 1
        assert f["write"]["error_count"] == 0 and f["read"]["error_count"] == 0
        assert f["inst_count"] == 2 and f["open_count"] == 2 and f["close_count"] == 2
        assert f["write"]["total_ns"] > 0 and f["write"]["p95_ns"] > 0
        assert f["write"]["max_ns"] >= f["write"]["p95_ns"] > 0
        assert f["sync_ns"] > 0


def test_relative_path_made_absolute():
    with TempDir() as d:
        os.makedirs(os.path.join(d, "sub"))
        env = clean_env({"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(d, "r.json")})
        r = subprocess.run([target("io_known"), "file", "sub/../rel.bin"], cwd=d, env=env,
                           capture_output=True, timeout=120)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(d, "r.json")) as f:
            report = validate(json.load(f))
        names = [x["name"] for x in resources(report)]
        assert os.path.join(os.path.realpath(d), "rel.bin") in names, names


def test_tcp_echo_both_ends_named():
    _, report, t = io_run(["tcp"])
    port, cport = t["port"], t["client_port"]
    name = f"tcp 127.0.0.1:{cport} -> 127.0.0.1:{port}"
    client = res(report, name, accepted=False)
    server = res(report, name, accepted=True)
    assert client["kind"] == server["kind"] == "tcp"
    assert client["write"]["bytes"] == t["sent"] == 1000000
    assert client["read"]["bytes"] == t["received"] == 1000000
    assert server["read"]["bytes"] == server["write"]["bytes"] == 1000000
    listener = res(report, f"tcp listen 127.0.0.1:{port}")
    assert listener["open_count"] == 1


def test_unix_socketpair_pipe_and_stdout_file():
    _, report, t = io_run(["unixpair"])
    pair = res(report, "unix socketpair")
    assert pair["kind"] == "unix"
    assert pair["write"]["bytes"] == pair["read"]["bytes"] == t["bytes"] == 8000
    # opens and closes both count descriptors: a pair makes two
    assert pair["inst_count"] == 1 and pair["open_count"] == 2 and pair["close_count"] == 2

    _, report, t = io_run(["pipe"])
    p = res(report, "pipe")
    assert p["kind"] == "pipe"
    assert p["write"]["bytes"] == p["read"]["bytes"] == t["bytes"] == 65536

    # stdout redirected to a file by the parent: named stdout, of kind file
    with TempDir() as d:
        out = os.path.join(d, "out.txt")
        with open(out, "wb") as f:
            proc = subprocess.run([target("io_known"), "stdout"], stdout=f, capture_output=False,
                                  stderr=subprocess.PIPE, timeout=120, env=clean_env(
                                      {"HOTPATH_OUTPUT_FORMAT": "json",
                                       "HOTPATH_OUTPUT_PATH": os.path.join(d, "r.json")}))
        assert proc.returncode == 0, proc.stderr
        assert os.path.getsize(out) == 1234
        with open(os.path.join(d, "r.json")) as f:
            report = validate(json.load(f))
        s = res(report, "stdout")
        assert s["kind"] == "file"
        assert s["write"]["bytes"] == 1234 and s["write"]["op_count"] == 1


def test_sendfile_file_to_socket():
    with TempDir() as d:
        path = os.path.join(d, "send.bin")
        _, report, t = io_run(["sendfile", path])
        assert t["sent"] == t["drained"] == 1048576
        f = res(report, path)
        assert f["read"]["bytes"] == 1048576          # sendfile read it
        assert f["write"]["bytes"] == 1048576         # written first
        assert f["seek_count"] == 1
        port = t["port"]
        client = [r for r in resources(report) if r["kind"] == "tcp" and not r["accepted"]
                  and r["name"].endswith(f" -> 127.0.0.1:{port}")]
        assert len(client) == 1, resources(report)
        client = client[0]
        assert client["write"]["bytes"] == 1048576
        server = [r for r in resources(report) if r["accepted"]][0]
        assert server["read"]["bytes"] == 1048576


def test_5000_short_connections_merge():
    _, report, t = io_run(["many", "5000"])
    port = t["port"]
    name = f"tcp 127.0.0.1:* -> 127.0.0.1:{port}"
    client = res(report, name, accepted=False)
    server = res(report, name, accepted=True)
    for side in (client, server):
        assert side["inst_count"] == 5000, side["inst_count"]
        assert side["read"]["bytes"] == side["write"]["bytes"] == 50000
        assert side["read"]["op_count"] == side["write"]["op_count"] == 5000
        assert side["close_count"] == 5000
    assert client["open_count"] == server["open_count"] == 5000
    assert report["io"]["overflow_count"] == 0
    # one row per side, not 5,000
    assert len([r for r in resources(report) if r["kind"] == "tcp"]) == 3   # + the listener


def test_iter_shows_each_instance():
    _, report, t = io_run(["many", "50"], env={"HOTPATH_IO_ITER": "true"})
    port = t["port"]
    accepted = [r for r in resources(report) if r["accepted"]]
    assert len(accepted) == 50
    assert all(r["inst_count"] == 1 and r["name"].endswith(f"-> 127.0.0.1:{port}") and "*" not in r["name"]
               for r in accepted)
    assert report["io"]["iter"] is True


def test_errors_ebadf_counted_eagain_not():
    _, report, t = io_run(["errors"])
    assert t["ebadf"] == 1 and t["eagain"] == 1     # the program saw the real errno
    bad = res(report, f"fd {t['badfd']} (bad)")
    assert bad["read"]["error_count"] == 1 and bad["read"]["op_count"] == 1
    p = res(report, "pipe")
    assert p["read"]["op_count"] == 1 and p["read"]["error_count"] == 0


def test_dup2_onto_stdout_and_reused_number():
    with TempDir() as d:
        path = os.path.join(d, "dup.txt")
        _, report, t = io_run(["dup", path])
        assert t["same_number"] == 1
        first = res(report, path)
        assert first["write"]["bytes"] == 13 and first["write"]["op_count"] == 2
        second = res(report, path + ".2")
        assert second["write"]["bytes"] == 7 and second["write"]["op_count"] == 1
        assert os.path.getsize(path) == 13 and os.path.getsize(path + ".2") == 7
        # the truth line went to the real stdout again, after dup2 restored it
        assert res(report, "stdout")["write"]["bytes"] > 0


def test_fortified_program_counted():
    with TempDir() as d:
        path = os.path.join(d, "fort.txt")
        r = run([target("io_fortify"), path])
        assert r.returncode == 0, r.stderr
        t = truth(r.stdout)
        f = res(r.report, path)
        size = os.path.getsize(path)
        assert t["written"] == size and t["lines"] == 100
        assert f["write"]["bytes"] == size and f["write"]["op_count"] == 100      # __fprintf_chk
        # __fgets_chk + __read_chk + __fread_chk + __getdelim (getline)
        assert f["read"]["bytes"] == t["fgets_bytes"] + t["read_bytes"] + t["fread_bytes"] + \
            t["getline_bytes"] == 4 * size
        assert f["inst_count"] == 5
        assert res(r.report, "stdout")["write"]["op_count"] == 6                 # __printf_chk


def test_closefrom_then_open_gets_expected_numbers():
    with TempDir() as d:
        path = os.path.join(d, "daemon.txt")
        _, report, t = io_run(["closeall", path])
        assert t["first_fd"] == 3 and t["second_fd"] == 4
        assert res(report, path)["write"]["bytes"] == 6
        assert res(report, "/dev/null")["write"]["bytes"] == 2


def test_thread_io_time_and_sampling():
    with TempDir() as d:
        path = os.path.join(d, "data.bin")
        _, report, _ = io_run(["file", path])
        main = [r for r in report["threads"]["rows"] if r["name"] == "main"][0]
        f = res(report, path)
        assert main["io_count"] >= 2560 + 1 + 160
        assert main["io_ns"] >= f["write"]["total_ns"] + f["sync_ns"] - f["write"]["flush_ns"]
        # count only: bytes and calls exact, no time
        _, report, _ = io_run(["file", path], env={"HOTPATH_IO_TIME_SAMPLING_RATE": "0"})
        f = res(report, path)
        assert f["write"]["op_count"] == 2560 and f["write"]["bytes"] == 10485760
        assert f["write"]["total_ns"] == 0 and report["io"]["time_sampling_rate"] == 0
        # one in ten timed
        _, report, _ = io_run(["file", path], env={"HOTPATH_IO_TIME_SAMPLING_RATE": "0.1"})
        f = res(report, path)
        assert f["write"]["op_count"] == 2560 and f["write"]["total_ns"] > 0


def test_profiler_io_not_counted_and_text_tables():
    with TempDir() as d:
        path = os.path.join(d, "data.bin")
        r = run([target("io_known"), "file", path], fmt="table", env={"HOTPATH_REPORT": "io"})
        assert r.returncode == 0
        text = r.stderr.decode()
        assert "io-read - Reads by file, socket and pipe." in text
        assert "io-write - Writes by file, socket and pipe." in text
        assert "| Resource " in text and "| Syncs |" in text
        assert "/s " in text     # a rate column
        # only the program's own resources: no /proc reads of the sampler, no report file
        r = run([target("io_known"), "file", path])
        names = [x["name"] for x in resources(r.report)]
        assert not any(n.startswith("/proc") for n in names), names
        assert not any(n.endswith(".json") for n in names), names


def test_io_in_a_handler_on_a_small_alternate_stack():
    """Rust reports a stack overflow from a handler on an 8 KB alternate stack by writing to fd 2:
    naming the new descriptor there took more stack than was left, and the program died by
    SIGSEGV instead of printing its message. The call counts under <other> until fd 2 is named."""
    for pad in ("0", "1500"):
        plain = bare([target("altstack_io"), pad])
        r = run([target("altstack_io"), pad])
        assert plain.returncode == r.returncode == 7, (pad, plain.returncode, r.returncode)
        assert r.stderr == plain.stderr and b"alternate stack" in r.stderr, r.stderr
        other = [x for x in r.report["io"]["resources"] if x["name"] == "<other>"]
        assert other and other[0]["write"]["op_count"] == 1, r.report["io"]["resources"]


def test_a_fork_child_counts_what_it_inherited_open_as_instances():
    """A fork child's records start from zero, and a descriptor it inherited open showed Inst 0
    beside the child's own writes to it (`stdout | pipe | 0 | 1 | 6 B`, found by a sweep)."""
    with TempDir() as d:
        path = os.path.join(d, "shared.txt")
        script = ("import os, sys\n"
                  "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n"
                  "os.write(1, b'parent\\n'); os.write(fd, b'parent\\n')\n"
                  "pid = os.fork()\n"
                  "if pid == 0:\n    os.write(1, b'child\\n'); os.write(fd, b'child\\n'); os._exit(0)\n"
                  "os.waitpid(pid, 0)\n")
        r = run([sys.executable, "-c", script, path])
        assert r.returncode == 0 and len(r.reports) == 2, (r.stdout, r.stderr[-300:])
        for report in r.reports.values():
            for name in ("stdout", path):
                row = res(report, name)
                assert row["write"]["op_count"] == 1 and row["inst_count"] == 1, (name, row["inst_count"])


def test_a_calls_average_leaves_out_the_streams_flushes():
    """echo's one fwrite to stdout is a memory copy; its data is written when the stream is
    flushed at exit. The average counted the flush and came out above the call's P95 and max
    (`Avg 11.17 µs, P95 3.81 µs`, found by a sweep); the flush stays in the Total."""
    r = run(["/bin/echo", "hi"])
    assert r.returncode == 0 and r.stdout == b"hi\n", r.stderr[-300:]
    w = res(r.report, "stdout")["write"]
    assert w["op_count"] >= 1 and w["flush_ns"] > 0, w
    assert w["avg_ns"] <= w["max_ns"] and w["total_ns"] >= w["avg_ns"] * w["op_count"] + w["flush_ns"] - 1, w


def test_the_overflow_note_is_on_the_table_that_has_other():
    """Past 4,096 resources new names fall into <other>; the note said so on the io-write title
    too, where only stdout was (grep -r, found by a sweep)."""
    with TempDir() as d:
        for i in range(4200):
            with open(os.path.join(d, "f%d" % i), "w") as f:
                f.write("x")
        script = ("import os, sys\n"
                  "for name in os.listdir(sys.argv[1]):\n"
                  "    with open(os.path.join(sys.argv[1], name)) as f: f.read()\n"
                  "os.write(1, b'done\\n')\n")
        r = run([sys.executable, "-c", script, d], fmt="table", env={"HOTPATH_REPORT": "io"})
        assert r.returncode == 0 and r.stdout == b"done\n", r.stderr[-300:]
        titles = {line.split(" - ")[0]: line for line in r.stderr.decode().splitlines()
                  if line.startswith("io-read - ") or line.startswith("io-write - ")}
        assert "table full" in titles["io-read"], titles
        assert "table full" not in titles["io-write"], titles
