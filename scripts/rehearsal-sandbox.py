"""The process keeper of `dynamo-constructs rehearse`.

Started once per rehearsal, by the rehearsal and nothing else. It starts the rehearsal's
processes when asked (one JSON command per line on standard input), reports when each starts and
how it ends (one JSON event per line on standard output), forwards a Unix socket to a port on
loopback, and stops everything.

When standard input closes, however the rehearsal ended (it returned, it was interrupted, or it
was killed with SIGKILL), every process it started is killed, the run's directory is removed and
the keeper exits. Run as the first process of a private user, network, PID, mount and IPC
namespace (`--isolated`), it first brings up the namespace's loopback interface, its only one,
and gives up every capability for itself and its children; its exit then takes every process of
the namespace with it.
"""

import ctypes
import fcntl
import json
import os
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
RUN_DIR_PREFIX = "dynamo-rehearse-"

libc = ctypes.CDLL(None, use_errno=True)
out_lock = threading.Lock()


def emit(event):
    with out_lock:
        try:
            sys.stdout.write(json.dumps(event) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            pass


def loopback_up():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    finally:
        s.close()


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def mount_pod_files(pod_files):
    """A private /run whose /run/secrets/kubernetes.io/serviceaccount is the run's folder: a pod's in-cluster credentials."""
    flags = 0
    if libc.mount(b"tmpfs", b"/run", b"tmpfs", flags, b"mode=0755") != 0:
        raise OSError(ctypes.get_errno(), "mount tmpfs on /run")
    os.makedirs("/run/secrets/kubernetes.io", exist_ok=True)
    os.symlink(pod_files, "/run/secrets/kubernetes.io/serviceaccount")


def drop_privileges():
    """No capability left, none to regain (no_new_privs): what the namespace's root could do, nobody here can."""
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    header = CapHeader(0x20080522, 0)
    data = (CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def child_setup():
    # dies with the keeper, whatever kills it
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Keeper:
    def __init__(self, run_dir, isolated):
        self.run_dir = run_dir
        # isolated, the PID namespace takes every process with the keeper, and the request forwarder's
        # threads make a function run between fork and exec unsafe: only the host needs the death signal
        self.child_setup = None if isolated else child_setup
        self.children = {}  # pid -> name
        self.groups = set()
        self.stopping = False

    def spawn(self, cmd):
        name = cmd["name"]
        log = cmd["log"]
        try:
            if os.path.dirname(os.path.realpath(log)) != os.path.realpath(os.path.join(self.run_dir, "logs")):
                raise ValueError("the log is not in the run's log directory")
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                p = subprocess.Popen(
                    cmd["argv"],
                    env=cmd["env"],
                    cwd=cmd["cwd"],
                    stdin=subprocess.DEVNULL,
                    stdout=fd,
                    stderr=fd,
                    start_new_session=True,
                    preexec_fn=self.child_setup,
                    close_fds=True,
                )
            finally:
                os.close(fd)
        except Exception as e:  # reported, not fatal: the rehearsal decides
            emit({"ev": "spawn-failed", "name": name, "error": str(e)})
            return
        self.children[p.pid] = name
        self.groups.add(p.pid)
        emit({"ev": "spawned", "name": name, "pid": p.pid})

    def signal_name(self, name, sig):
        for pid, n in list(self.children.items()):
            if n == name:
                self.kill_group(pid, sig)

    def kill_group(self, pgid, sig):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            pass

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            name = self.children.pop(pid, None)
            if name is None:
                continue  # an orphan of one of ours, reaped
            code = os.waitstatus_to_exitcode(status)
            emit({"ev": "exit", "name": name, "pid": pid, "code": code if code >= 0 else None, "signal": signal.Signals(-code).name if code < 0 else None})

    def descendants(self):
        """Processes left whose parent is the keeper (orphans reparented to it)."""
        me = os.getpid()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                found.append(int(entry))
        return found

    def kill_all(self, sig):
        for pgid in list(self.groups):
            self.kill_group(pgid, sig)
        for pid in self.descendants():
            try:
                os.kill(pid, sig)
            except OSError:
                pass

    def stop(self, grace):
        self.kill_all(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.alive() and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.05)
        self.kill_everything()
        emit({"ev": "stopped"})

    def alive(self):
        self.reap()
        return bool(self.children) or bool(self.descendants())

    def kill_everything(self):
        for _ in range(100):
            self.kill_all(signal.SIGKILL)
            self.reap()
            if not self.alive():
                return
            time.sleep(0.05)

    def finish(self):
        self.kill_everything()
        base = os.path.basename(os.path.normpath(self.run_dir))
        if base.startswith(RUN_DIR_PREFIX) and os.path.isdir(self.run_dir) and not os.path.islink(self.run_dir):
            shutil.rmtree(self.run_dir, ignore_errors=True)


def forward(unix_path, port, host="127.0.0.1"):
    """Connections to a Unix socket in the run's directory, carried to host:port on loopback (the rehearsal's own requests)."""
    if not host.startswith("127.") or len(host.split(".")) != 4 or not all(p.isdigit() and int(p) < 256 for p in host.split(".")):
        raise ValueError("the forwarder reaches loopback addresses only")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(unix_path)
    os.chmod(unix_path, 0o600)
    server.listen(64)

    def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def serve():
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection((host, port), timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()


def main():
    args = sys.argv[1:]
    isolated = "--isolated" in args
    run_dir = args[args.index("--run-dir") + 1]
    if isolated:
        loopback_up()
        if "--pod-files" in args:
            mount_pod_files(args[args.index("--pod-files") + 1])
        drop_privileges()
    else:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    keeper = Keeper(run_dir, isolated)
    # the rehearsal's terminal signals go to the rehearsal; the keeper answers to its commands and to EOF
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    sel.register(wake_r, selectors.EVENT_READ, "wake")
    emit({"ev": "ready", "pid": os.getpid(), "isolated": isolated})
    buffered = b""
    try:
        while True:
            for key, _ in sel.select(timeout=1.0):
                if key.data == "wake":
                    try:
                        os.read(wake_r, 4096)
                    except BlockingIOError:
                        pass
                    continue
                chunk = os.read(sys.stdin.fileno(), 65536)
                if not chunk:
                    return keeper
                buffered += chunk
                while b"\n" in buffered:
                    line, buffered = buffered.split(b"\n", 1)
                    if not line.strip():
                        continue
                    cmd = json.loads(line)
                    op = cmd.get("op")
                    if op == "spawn":
                        keeper.spawn(cmd)
                    elif op == "signal":
                        keeper.signal_name(cmd["name"], signal.Signals["SIG" + cmd["signal"]])
                    elif op == "forward":
                        try:
                            forward(cmd["unix"], int(cmd["port"]), cmd.get("host", "127.0.0.1"))
                        except (OSError, ValueError) as e:
                            emit({"ev": "error", "error": f"forwarding {cmd['unix']}: {e}"})
                        else:
                            emit({"ev": "forwarding", "unix": cmd["unix"]})
                    elif op == "stop":
                        keeper.stop(float(cmd.get("grace", 10)))
            keeper.reap()
    finally:
        keeper.finish()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the rehearsal reads this as the keeper's last word
        emit({"ev": "error", "error": f"{type(e).__name__}: {e}"})
        sys.exit(1)
