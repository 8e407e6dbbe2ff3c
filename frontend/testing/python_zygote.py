#!/usr/bin/python3 -IS
"""A fork server for the tests' Python scripts: torch imported once.

`ptoc FILE.py` runs FILE.py under /usr/bin/python3, and most of each run
(1.3 of 1.9 s) is `import torch`. The tests of label python run a few
hundred such scripts, so a ctest fixture starts this server once
(`python_zygote --serve`): it imports torch and numpy, then forks a child
per script, which runs it as the interpreter would run `python3 FILE.py`
(a fresh `__main__`, sys.argv, sys.path from the script's directory and
PYTHONPATH, the caller's cwd, environment and standard streams, the
excepthook, atexit and the exit status). pypto itself is imported by each
child, so nothing the script's environment decides is fixed by the server.

The tests point ptoc at this file through PTOC_PYTHON; run that way
(`python_zygote FILE.py ARGS`) it is the client: it hands its standard
streams and request to the server and exits as the script did. Without a
server (a test binary run by hand) it runs /usr/bin/python3 itself.
Test-only: users' scripts always run in a fresh interpreter.
"""

import json
import os
import socket
import struct
import sys

SOCKET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_zygote.sock")
PYTHON = "/usr/bin/python3"
IDLE_EXIT_SECONDS = 1800  # a server whose cleanup never ran ends by itself


def _recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        data += chunk
    return data


# ---- client ----

def client(argv):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(SOCKET)
    except OSError:
        os.execv(PYTHON, [PYTHON] + argv)  # no server: a fresh interpreter
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [struct.pack("!I", len(request))], [0, 1, 2])
    conn.sendall(request)
    status = struct.unpack("!i", _recv_exact(conn, 4))[0]
    if os.WIFSIGNALED(status):
        import signal
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.waitstatus_to_exitcode(status))


# ---- server ----

def _reopen_standard_streams():
    import io
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8",
        line_buffering=os.isatty(1))
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8",
        errors="backslashreplace", line_buffering=True)


def _exit_code(exit):
    """The status `raise SystemExit(code)` ends the interpreter with."""
    code = exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_script(request, fds, base_path):
    """In the forked child: runs the request's script; never returns."""
    import atexit
    import builtins
    import random
    import signal
    import threading
    import types

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv = request["argv"]
    script = argv[0]
    sys.argv = list(argv)
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.path.dirname(os.path.abspath(script))] + extra + base_path
    _reopen_standard_streams()
    random.seed()  # as a fresh interpreter's would be
    sys.modules["numpy"].random.seed()
    status = 0
    try:
        with open(script, "rb") as f:
            code = compile(f.read(), script, "exec", dont_inherit=True)
        main = types.ModuleType("__main__")
        main.__file__ = script
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        exec(code, main.__dict__)
    except SystemExit as e:
        status = _exit_code(e)
    except BaseException:
        kind, value, tb = sys.exc_info()
        # Without this frame: the hook prints the exception's own traceback.
        value = value.with_traceback(tb.tb_next)
        sys.excepthook(kind, value, tb.tb_next)
        status = 1
    try:
        threading._shutdown()  # as the interpreter does at its end
        atexit._run_exitfuncs()
    except SystemExit as e:
        status = _exit_code(e)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass
    os._exit(status)


def serve():
    import select
    import signal

    # Each child imports what it needs; these are only the slow ones.
    import numpy  # noqa: F401
    import torch  # noqa: F401

    own = {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    base_path = [p for p in sys.path[1:] if p not in own]
    try:
        os.unlink(SOCKET)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(SOCKET)
    listener.listen(64)
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children = {}  # pid -> the client's connection
    while listener is not None or children:
        waiting = [wake_r] if listener is None else [listener, wake_r]
        ready, _, _ = select.select(waiting, [], [], IDLE_EXIT_SECONDS)
        if not ready and not children:
            break
        if wake_r in ready:
            wake_r.recv(4096)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(struct.pack("!i", status))
                except OSError:
                    pass
                conn.close()
        if listener is None or listener not in ready:
            continue
        conn, _ = listener.accept()
        try:
            header, fds, _, _ = socket.recv_fds(conn, 4, 3)
            request = json.loads(_recv_exact(conn, struct.unpack("!I", header)[0]))
        except (OSError, ValueError, struct.error, ConnectionError):
            conn.close()
            continue
        if request.get("stop"):  # accept no more; answer the scripts still running
            conn.close()
            listener.close()
            listener = None
            os.unlink(SOCKET)
            continue
        pid = os.fork()
        if pid == 0:
            listener.close()
            conn.close()
            wake_r.close()
            wake_w.close()
            _run_script(request, fds, base_path)
        for fd in fds:
            os.close(fd)
        children[pid] = conn
    if listener is not None:
        os.unlink(SOCKET)


def start():
    """Starts a detached server and returns once it accepts requests."""
    import time

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(SOCKET)
        return 0  # one is running already
    except OSError:
        pass
    finally:
        probe.close()
    if os.fork() == 0:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)  # ctest waits for its test's pipes to close
        os.execv(PYTHON, [PYTHON, os.path.abspath(__file__), "--serve-foreground"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(SOCKET)
            probe.close()
            return 0
        except OSError:
            time.sleep(0.05)
    print(f"python_zygote: the server did not listen on {SOCKET} within 60 s", file=sys.stderr)
    return 1


def stop():
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(SOCKET)
    except OSError:
        return 0  # none running
    request = json.dumps({"stop": True}).encode()
    socket.send_fds(conn, [struct.pack("!I", len(request))], [])
    conn.sendall(request)
    conn.close()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.exit(start())
    if sys.argv[1:] == ["--serve-foreground"]:
        serve()
        sys.exit(0)
    if sys.argv[1:] == ["--stop"]:
        sys.exit(stop())
    client(sys.argv[1:])
