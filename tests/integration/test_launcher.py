"""hotpath-run: options map to the settings, the library goes first in LD_PRELOAD, the program's
exit status comes back, and `make install` lays out a working copy."""
import json
import os
import subprocess
import tempfile

from harness import ROOT, RUN, clean_env, target, validate


def launch(args, env=None, timeout=60):
    return subprocess.run([RUN] + args, env=clean_env(env, preload=False), capture_output=True, timeout=timeout)


def test_options_reach_the_profiler():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r-%p.json")
        p = launch(["-o", out, "-f", "json", "-i", "50", "-l", "1", "--", target("alloc_known")])
        assert p.returncode == 0, p.stderr
        (name,) = os.listdir(d)
        report = validate(json.load(open(os.path.join(d, name))))
        assert report["threads"]["interval_ms"] == 50
        assert report["pid"] == int(name[2:-5])
    p = launch(["--format=table", "--limit=1", target("alloc_known")])
    assert "(1/5)" in p.stderr.decode(), p.stderr


def test_a_relative_output_path_is_where_hotpath_run_was_started():
    """-o rel-%p.%n.json was resolved by each process against its own directory when it wrote its
    report, so a program that changed directory, and every child started elsewhere, left reports
    in the trees they worked in (found in a git work tree by a sweep)."""
    with tempfile.TemporaryDirectory() as here, tempfile.TemporaryDirectory() as there:
        p = subprocess.run([RUN, "-f", "json", "-o", "rel-%p.%n.json", "bash", "-c", 'cd "$1" && exec /bin/true',
                            "_", there], cwd=here, env=clean_env(preload=False), capture_output=True)
        assert p.returncode == 0, p.stderr
        names = sorted(os.listdir(here))            # bash's report and true's, one pid
        assert os.listdir(there) == [] and len(names) == 2, (names, os.listdir(there))
        assert [n.split(".")[1] for n in names] == ["0", "1"], names


def test_preload_goes_first_and_keeps_the_users_entries():
    env = {"LD_PRELOAD": "libc.so.6"}
    p = subprocess.run([RUN, "-f", "none", "sh", "-c", 'echo "$LD_PRELOAD"'],
                       env={**clean_env(preload=False), **env}, capture_output=True)
    first, *rest = p.stdout.decode().strip().split(":")
    assert first.endswith("/libhotpath.so") and os.path.isabs(first), first
    assert rest == ["libc.so.6"], rest


def test_exit_status_passes_through():
    assert launch(["-f", "none", target("exit_paths"), "exit"]).returncode == 4
    assert launch(["-f", "none", target("exit_paths"), "sigterm"]).returncode == -15
    p = subprocess.run(["sh", "-c", f'"{RUN}" -f none "{target("exit_paths")}" sigterm; echo $?'],
                       env=clean_env(preload=False), capture_output=True)
    assert p.stdout.decode().splitlines()[-1] == "143"


def test_help_version_and_bad_options():
    p = launch(["--help"])
    assert p.returncode == 0 and b"usage: hotpath-run" in p.stdout
    p = launch(["--version"])
    with open(os.path.join(ROOT, "report", "report.h")) as f:
        version = next(line.split('"')[1] for line in f if "HP_VERSION" in line and '"' in line)
    assert p.stdout.decode().strip() == f"hotpath-run {version}"
    p = launch(["--bogus", "true"])
    assert p.returncode == 2 and b"unknown option --bogus" in p.stderr
    p = launch([])
    assert p.returncode == 2 and b"usage" in p.stderr


def test_make_install_gives_a_working_copy():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["make", "-s", "install", f"DESTDIR={d}", "PREFIX=/opt/hp"], cwd=ROOT, check=True,
                       capture_output=True)
        base = os.path.join(d, "opt", "hp")
        assert os.access(os.path.join(base, "bin", "hotpath-run"), os.X_OK)
        assert os.path.exists(os.path.join(base, "lib", "libhotpath.so"))
        assert os.path.exists(os.path.join(base, "share", "man", "man1", "hotpath-run.1"))
        p = subprocess.run([os.path.join(base, "bin", "hotpath-run"), "-f", "table", target("alloc_known")],
                           env=clean_env(preload=False), capture_output=True)
        assert p.returncode == 0 and b"threads - Thread CPU" in p.stderr, p.stderr


def test_says_when_the_preload_cannot_take_effect():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "s.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 3; }\n")
        static = os.path.join(d, "static_prog")
        subprocess.run(["cc", "-static", src, "-o", static], check=True)
        p = launch(["-f", "none", static])
        assert p.returncode == 3
        assert p.stderr.decode().count("\n") == 1 and "statically linked" in p.stderr.decode()
        suid = os.path.join(d, "suid_true")
        subprocess.run(["cp", "/bin/true", suid], check=True)
        os.chmod(suid, 0o4755)
        p = launch(["-f", "none", suid])
        assert p.returncode == 0 and "set-user-ID" in p.stderr.decode()
        p = launch(["-f", "none", "true"])                       # an ordinary program: silence
        assert p.returncode == 0 and p.stderr == b""
        # scripts: their interpreter runs, profiled (ldd calls every script "not a dynamic
        # executable", and each was said to run unprofiled); one for the static program is not
        for name, line in (("sh", "#!/bin/sh\n"), ("env", "#!/usr/bin/env sh\n"), ("static", f"#!{static}\n")):
            script = os.path.join(d, name + ".sh")
            with open(script, "w") as f:
                f.write(line + "exit 4\n")
            os.chmod(script, 0o755)
            p = launch(["-f", "none", script])
            said = "statically linked" in p.stderr.decode()
            assert said == (name == "static"), (name, p.stderr)


def test_no_children_and_checkpoint_options():
    p = launch(["--no-children", "-f", "none", target("exec_paths"), "spawn"])
    assert b"probe profiled=0" in p.stdout, p.stdout
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r-%p-%n.json")
        p = launch(["--checkpoint", "1", "-f", "json", "-o", out, target("exec_paths"), "exec"])
        assert p.returncode == 0
        names = sorted(os.listdir(d))
        assert len(names) == 2 and names[0].endswith("-0.json") and names[1].endswith("-1.json"), names
