"""hotpath-run: options map to the settings, the library goes first in LD_PRELOAD, the program's
exit status comes back, and `make install` lays out a working copy."""
import json
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import time

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
        assert os.access(os.path.join(base, "libexec", "hotpath", "hotpath-launch"), os.X_OK)
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
        # set-user-ID to another user (secure mode): only root can make one; a set-user-ID file
        # of one's own changes no credentials and is profiled, with no line
        suid = os.path.join(d, "suid_true")
        subprocess.run(["cp", "/bin/true", suid], check=True)
        os.chmod(suid, 0o4755)
        p = launch(["-f", "none", suid])
        assert p.returncode == 0 and p.stderr == b"", p.stderr
        if os.geteuid() == 0:
            os.chown(suid, 65534, -1)
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


# ---- the launcher that stays (hotpath-launch, the parent hotpath-run.sh execs on Linux) ----

def start(args, env=None, **kw):
    """hotpath-run ARGS started (not waited for): its pid is the launcher's, the script having
    exec'd it."""
    return subprocess.Popen([RUN] + args, env=clean_env(env, preload=False), **kw)


def stray(pid):
    """A process the launcher named as not waited for: ended here, so no test leaves it running."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_status_and_death_signal_of_a_shell_come_back():
    assert launch(["-f", "none", "sh", "-c", "exit 7"]).returncode == 7
    p = launch(["-f", "none", "sh", "-c", "kill -TERM $$"])
    assert p.returncode == -15 and p.stderr == b"", p.stderr
    # a core dump of the program leaves no core of the launcher's: it dies of the same signal
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([RUN, "-f", "none", "sh", "-c", "kill -SEGV $$"], cwd=d,
                           env=clean_env(preload=False), capture_output=True)
        assert p.returncode == -11 and not [n for n in os.listdir(d) if n.startswith("core")]


def test_sigterm_sent_to_the_launcher_reaches_the_program_which_writes_its_report():
    prog = ("import os, signal, sys, time\n"
            "def ended(*_):\n"
            "    open(sys.argv[1], 'w').write('TERM')\n"
            "    sys.exit(3)\n"
            "signal.signal(signal.SIGTERM, ended)\n"
            "print(os.getpid(), flush=True)\n"
            "time.sleep(30)\n")
    with tempfile.TemporaryDirectory() as d:
        marker = os.path.join(d, "marker")
        p = start(["-f", "json", "-o", os.path.join(d, "r-%p.json"), sys.executable, "-c", prog, marker],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        pid = int(p.stdout.readline())
        assert pid != p.pid
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 3, err
        assert open(marker).read() == "TERM"
        report = validate(json.load(open(os.path.join(d, f"r-{pid}.json"))))
        assert report["pid"] == pid and report["final"]
        assert sorted(os.listdir(d)) == ["marker", f"r-{pid}.json"]


def interrupted(cmd):
    """cmd (prints a line, then sleeps) sent SIGINT with kill() once it printed. It starts with
    SIGINT at its default action: a test worker may ignore SIGINT, and a child inherits that."""
    p = subprocess.Popen(cmd, env=clean_env(preload=False), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    p.stdout.readline()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    return p.returncode, err.decode()


def test_sigint_sent_to_the_launcher_interrupts_python_once_as_bare():
    prog = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"]
    bare_status, bare_err = interrupted(prog)
    status, err = interrupted([RUN, "-f", "none"] + prog)
    assert bare_err.count("KeyboardInterrupt") == 1, bare_err
    assert (status, err.count("KeyboardInterrupt")) == (bare_status, 1), err


def test_an_orphan_is_waited_for_and_leaves_its_report():
    with tempfile.TemporaryDirectory() as d:
        t = time.monotonic()
        p = launch(["-f", "json", "-o", os.path.join(d, "r-%p.%n.json"), "bash", "-c", "sleep 1 & echo hi"])
        took = time.monotonic() - t
        assert p.returncode == 0 and p.stdout == b"hi\n" and p.stderr == b"", p.stderr
        assert took >= 0.8, took
        commands = [validate(json.load(open(os.path.join(d, n))))["argv"] for n in sorted(os.listdir(d))]
        assert ["sleep", "1"] in commands, commands


def test_orphans_still_running_after_the_wait_are_named_in_one_line():
    for wait, sleep_s, took_at_most in ((["--orphan-wait", "1"], "5", 4.0), (["--orphan-wait=0"], "5", 3.0)):
        t = time.monotonic()
        p = launch(["-f", "none"] + wait + ["bash", "-c", f"sleep {sleep_s} >/dev/null 2>&1 & echo hi"])
        took = time.monotonic() - t
        err = p.stderr.decode()
        # the orphan is named as it is then: bash's fork child may not have exec'd sleep yet
        m = re.fullmatch(r"hotpath-run: pid (\d+) \((?:sleep|bash)\) still runs (\d+) s after the program ended; "
                         r"not waited for\n", err)
        assert m and p.returncode == 0, err
        stray(int(m.group(1)))
        assert m.group(2) == wait[-1].split("=")[-1] and took < took_at_most, (err, took)
    for bad in (["--orphan-wait", "1.5"], ["--orphan-wait=x"], ["--orphan-wait", "-1"]):
        p = launch(bad + ["true"])
        assert p.returncode == 2 and p.stderr == b"hotpath-run: --orphan-wait needs a whole number of seconds\n"


def test_a_program_that_cannot_run_says_why_as_sh_does():
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([RUN, "-f", "none", "./nonexistent"], cwd=d, env=clean_env(preload=False),
                           capture_output=True)
        assert (p.returncode, p.stderr) == (127, b"hotpath-run: ./nonexistent: No such file or directory\n")
        p = launch(["-f", "none", "no-such-program-of-hotpath"])
        assert p.returncode == 127 and b"no-such-program-of-hotpath: No such file" in p.stderr
        plain = os.path.join(d, "plain")
        open(plain, "w").close()
        p = launch(["-f", "none", plain])
        assert (p.returncode, p.stderr) == (126, f"hotpath-run: {plain}: Permission denied\n".encode())


def test_the_launcher_writes_no_report():
    with tempfile.TemporaryDirectory() as d:
        p = start(["-f", "json", "-o", os.path.join(d, "r-%p.json"), "/bin/true"])
        assert p.wait(timeout=30) == 0
        (name,) = os.listdir(d)
        report = validate(json.load(open(os.path.join(d, name))))
        assert report["pid"] != p.pid and report["argv"] == ["/bin/true"], report["argv"]


def test_the_program_is_the_unprofiled_launchers_child_in_its_group():
    prog = "import os, sys; print(os.getppid(), os.getpgrp(), flush=True); sys.stdin.readline()"
    p = start(["-f", "none", sys.executable, "-c", prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        ppid, pgrp = map(int, p.stdout.readline().split())
        assert ppid == p.pid and pgrp == os.getpgrp()
        assert os.readlink(f"/proc/{p.pid}/exe").endswith("/hotpath-launch")
        maps = open(f"/proc/{p.pid}/maps").read()
        assert "libhotpath" not in maps
        assert "LD_PRELOAD" not in open(f"/proc/{p.pid}/environ").read()
    finally:
        p.communicate(b"\n", timeout=30)
    assert p.returncode == 0


def test_the_program_gets_the_signal_state_and_descriptors_it_would_have_bare():
    """A nohup-like caller: SIGINT and SIGHUP ignored, SIGUSR1 blocked. The launcher blocks and
    changes others for itself; the program must see none of that, nor the launcher's descriptors."""
    def caller():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})

    def seen(cmd, preload):
        p = subprocess.run(cmd, env=clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "HOTPATH_METRICS_SERVER_OFF": "true"},
                                              preload), capture_output=True, preexec_fn=caller)
        assert p.returncode == 0, p.stderr
        # "lr-x------ 1 root root 64 Dec  2 15:42 3 -> pipe:[5958]" is "3 -> pipe"
        return [re.sub(r".* (\d+ -> [a-z_/:]+).*", r"\1", line) for line in p.stdout.decode().splitlines()]

    for show in (["grep", "-E", "^Sig(Blk|Ign|Pnd)", "/proc/self/status"], ["ls", "-l", "/proc/self/fd"]):
        bare = seen(show, True)
        assert seen([RUN] + show, False) == bare
        if show[0] == "grep":
            masks = dict(line.split(":\t") for line in bare)
            assert int(masks["SigIgn"], 16) & 0x3 == 0x3, masks
            assert int(masks["SigBlk"], 16) & 1 << (signal.SIGUSR1 - 1), masks


def test_ctrl_c_on_the_terminal_reaches_the_program_once():
    """The terminal sends SIGINT to its whole foreground process group, the program with the
    launcher: the launcher must not send it a second one."""
    prog = ("import signal, sys, time\n"
            "got = []\n"
            "signal.signal(signal.SIGINT, lambda *_: got.append(1))\n"
            "print('ready', flush=True)\n"
            "while not got: time.sleep(0.01)\n"
            "time.sleep(0.5)\n"
            "print('interrupts', len(got), flush=True)\n")
    pid, tty = pty.fork()
    if pid == 0:
        os.execve(RUN, [RUN, "-f", "none", sys.executable, "-c", prog], clean_env(preload=False))
    seen = b""
    try:
        while b"ready" not in seen:
            seen += os.read(tty, 1024)
        os.write(tty, b"\x03")
        while b"interrupts" not in seen or not seen.endswith(b"\n"):
            seen += os.read(tty, 1024)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(tty)
    assert b"interrupts 1" in seen and os.waitstatus_to_exitcode(status) == 0, seen
