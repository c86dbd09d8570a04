"""live.py — helpers for the live views' tests: profiled long-running programs with their own
registry directory (XDG_RUNTIME_DIR), curl, raw sockets."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from harness import clean_env, target

CURL = shutil.which("curl") or "/usr/bin/curl"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Live:
    """A profiled program serving the live views; a context manager that kills it at the end."""

    def __init__(self, args=("live", "30000"), env=None, runtime=None, served=True, cmd=None):
        """args: a target and its arguments; or cmd, a whole command line of any program."""
        self.runtime = runtime or tempfile.mkdtemp(prefix="hotpath-rt-")
        self.own_runtime = runtime is None
        extra = {"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": self.runtime}
        extra.update(env or {})
        self.proc = subprocess.Popen(cmd or [target(args[0])] + list(args[1:]), env=clean_env(extra),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        assert line.startswith("ready"), (line, self.proc.stderr.read() if self.proc.poll() is not None else b"")
        self.pid = self.proc.pid
        self.first_ready = int(line.split()[1])   # a fork child may print first
        self.entry = wait_entry(self.runtime, self.pid, 5.0 if served else 0.5)

    @property
    def port(self):
        return self.entry["port"] if self.entry else None

    @property
    def registry(self):
        return os.path.join(self.runtime, "hotpath")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.proc.stderr.closed:
            return b""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        if self.own_runtime:
            shutil.rmtree(self.runtime, ignore_errors=True)


def wait_entry(runtime, pid, timeout=5.0):
    path = os.path.join(runtime, "hotpath", f"{pid}.json")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            time.sleep(0.02)
    return None


def curl(url, *args, timeout=10):
    """(status, headers text, body bytes) from a real curl."""
    p = subprocess.run([CURL, "-sS", "-D", "-", "--max-time", str(timeout), *args, url],
                       capture_output=True, timeout=timeout + 5)
    assert p.returncode == 0, (url, p.returncode, p.stderr)
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode("latin-1"), body


def get_json(url, *args):
    status, _, body = curl(url, *args)
    return status, json.loads(body)


def raw(port, data, timeout=10, read=True):
    """Send raw bytes, return everything the server answered until it closed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        if data:
            s.sendall(data)
        if not read:
            return b""
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def raw_status(port, data):
    answer = raw(port, data)
    return int(answer.split(b" ", 2)[1]), answer


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))
