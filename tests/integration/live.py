"""live.py — helpers for the live views' tests: profiled long-running programs with their own
registry directory (XDG_RUNTIME_DIR), curl, raw sockets.

The server asks for the user's token by default (the registry directory's `token` file): curl
and raw send it, as the console and Prometheus do, to a port registered in a registry directory
the tests know of (a Live's, or one passed to wait_entry or use_runtime), unless the test sends
an Authorization of its own or says auth=False."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from harness import clean_env, target

CURL = shutil.which("curl") or "/usr/bin/curl"

RUNTIMES = []      # the registry directories' parents (XDG_RUNTIME_DIR) the tests made


def use_runtime(runtime):
    if runtime not in RUNTIMES:
        RUNTIMES.append(runtime)
    return runtime


def token_file(runtime):
    return os.path.join(runtime, "hotpath", "token")


def read_token(runtime):
    try:
        with open(token_file(runtime)) as f:
            return f.read().strip()
    except OSError:
        return None


def token_for(port):
    """The user's token for the process registered on port, None when it needs none (or no
    registry the tests know of has it)."""
    for runtime in reversed(RUNTIMES):
        d = os.path.join(runtime, "hotpath")
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(d, name)) as f:
                    entry = json.load(f)
            except (OSError, ValueError):
                continue
            if entry.get("port") == port:
                return read_token(runtime) if entry.get("token_required") else None
    return None


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
        self.runtime = use_runtime(runtime or tempfile.mkdtemp(prefix="hotpath-rt-"))
        self.own_runtime = runtime is None
        extra = {"HOTPATH_OUTPUT_FORMAT": "none", "XDG_RUNTIME_DIR": self.runtime}
        extra.update(env or {})
        self.proc = subprocess.Popen(cmd or [target(args[0])] + list(args[1:]), env=clean_env(extra),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        assert line.startswith("ready"), (line, self.proc.stderr.read() if self.proc.poll() is not None else b"")
        self.pid = self.proc.pid
        self.first_ready = int(line.split()[1])   # a fork child may print first
        # unserved: past the server's start (HOTPATH_METRICS_START_MS, 1 s by default) too
        self.entry = wait_entry(self.runtime, self.pid, 5.0 if served else 1.5)

    @property
    def port(self):
        return self.entry["port"] if self.entry else None

    @property
    def token(self):
        """The user's token, which this process asks for (None if it asks for none)."""
        return read_token(self.runtime) if self.entry and self.entry["token_required"] else None

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
    use_runtime(runtime)
    path = os.path.join(runtime, "hotpath", f"{pid}.json")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            time.sleep(0.02)
    return None


def auth_args(url, args):
    """The user's token as curl's header, when the test gives no credentials of its own."""
    if any("authorization" in str(a).lower() for a in args) or "-u" in args or "@" in url.split("/")[2]:
        return []
    port = int(url.split("/")[2].rsplit(":", 1)[1])
    token = token_for(port)
    return ["-H", f"Authorization: Bearer {token}"] if token else []


def curl(url, *args, timeout=10, auth=True):
    """(status, headers text, body bytes) from a real curl; with the user's token (auth_args)."""
    extra = auth_args(url, args) if auth else []
    p = subprocess.run([CURL, "-sS", "-D", "-", "--max-time", str(timeout), *extra, *args, url],
                       capture_output=True, timeout=timeout + 5)
    assert p.returncode == 0, (url, p.returncode, p.stderr)
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode("latin-1"), body


def get_json(url, *args, auth=True):
    status, _, body = curl(url, *args, auth=auth)
    return status, json.loads(body)


def with_token(port, data):
    """A GET or HEAD whose request line is whole gets the user's token after it, unless it has an
    Authorization of its own."""
    if not data.startswith((b"GET ", b"HEAD ")) or b"\r\n" not in data or b"authorization" in data.lower():
        return data
    token = token_for(port)
    if not token:
        return data
    line, _, rest = data.partition(b"\r\n")
    return line + b"\r\nAuthorization: Bearer " + token.encode() + b"\r\n" + rest


def raw(port, data, timeout=10, read=True, auth=True):
    """Send raw bytes, return everything the server answered until it closed."""
    if auth and data:
        data = with_token(port, data)
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


def raw_status(port, data, auth=True):
    answer = raw(port, data, auth=auth)
    return int(answer.split(b" ", 2)[1]), answer


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


OTHER_USER = "hotpath-test-other"


def other_user():
    """(uid, gid) of a second local user, a system user made for the test when there is none."""
    import pwd
    try:
        pw = pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        OTHER_USER], check=True, capture_output=True)
        pw = pwd.getpwnam(OTHER_USER)
    return pw.pw_uid, pw.pw_gid
