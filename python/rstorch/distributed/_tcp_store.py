"""`TCPStore`: a store served over TCP by the process that creates it with `is_master=True` and
reached by every other process (clients) at `host_name:port`. The server keeps a HashStore and
answers each connection in a thread of its own, so one client blocked in `get` or `wait` does not
hold up the others. Requests and answers are lines of JSON (values as hex): nothing a peer sends is
ever executed, only the store operations named in `_OPERATIONS`."""
import datetime
import json
import socket
import socketserver
import threading
import time

from ._store import DistNetworkError, DistStoreError, HashStore, Store, _seconds

_OPERATIONS = ("set", "get", "add", "append", "compare_set", "multi_get", "multi_set", "check", "delete_key",
               "num_keys", "list_keys", "wait", "barrier", "queue_push", "queue_pop", "queue_len")
_WORKERS = "\0workers"   # hidden key: how many stores have connected (for wait_for_workers)
_servers = {}             # (host, port) -> server, shared by multi_tenant stores of this process


def _encode(value):
    if isinstance(value, (bytes, bytearray)):
        return {"hex": bytes(value).hex()}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _decode(value):
    if isinstance(value, dict):
        return bytes.fromhex(value["hex"])
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _timeout_error(keys, seconds):
    return DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: {', '.join('/' + k for k in keys)}")


class _Timed(Store):
    """The server's HashStore seen with one request's timeout, worded as PyTorch's TCPStore."""

    def _timeout_error(self, keys, seconds, call):
        return _timeout_error(keys, seconds)

    def __init__(self, store, seconds):
        self._store = store
        self._timeout = datetime.timedelta(seconds=seconds)

    def _atomic(self, fn):
        return self._store._atomic(fn)

    def _wait_until(self, predicate, seconds):
        return self._store._wait_until(predicate, seconds)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            try:
                request = json.loads(line)
                name = request["op"]
                if name not in _OPERATIONS:
                    raise ValueError(f"unknown store operation {name!r}")
                store = _Timed(self.server.store, request["timeout"])
                answer = {"ok": _encode(getattr(store, name)(*_decode(request["args"])))}
            except DistStoreError as e:
                answer = {"error": ["DistStoreError", str(e)]}
            except (KeyError, ValueError, TypeError) as e:
                answer = {"error": [type(e).__name__, str(e)]}
            self.wfile.write(json.dumps(answer).encode() + b"\n")
            self.wfile.flush()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host, port):
        super().__init__((host, port), _Handler)
        self.store = HashStore()
        self.thread = threading.Thread(target=self.serve_forever, name="TCPStore server", daemon=True)
        self.thread.start()


class TCPStore(Store):
    """PyTorch's TCPStore. `port=0` with `is_master=True` picks a free port (read it back from
    `.port`); with `world_size` and `wait_for_workers` the master waits until that many stores
    (itself included) have connected."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=datetime.timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__()
        self.set_timeout(timeout)
        self.host = host_name
        self.libuvBackend = use_libuv
        self._server = None
        if is_master:
            key = (host_name, port)
            if multi_tenant and port and key in _servers:
                self._server = _servers[key]
            else:
                try:
                    self._server = _Server(host_name, port)
                except OSError as e:
                    raise DistNetworkError(f"The server socket has failed to listen on {host_name}:{port}: {e}") from e
                if multi_tenant:
                    _servers[(host_name, self._server.server_address[1])] = self._server
            port = self._server.server_address[1]
        self.port = port
        # One connection per thread: a thread blocked in get() does not hold up another's set().
        self._local = threading.local()
        self._connections = []
        count = self.add(_WORKERS, 1)
        if is_master and world_size and wait_for_workers and count < world_size:
            try:
                self._wait_for_workers(world_size)
            except DistStoreError:
                raise DistStoreError(f"Timed out after {_seconds(self._timeout):.0f} seconds waiting for clients. "
                                     f"{int(self._call('get', [_WORKERS]))}/{world_size} clients joined.") from None

    def _wait_for_workers(self, world_size):
        """Wait until `world_size` stores have connected (the master's wait_for_workers)."""
        deadline = time.monotonic() + _seconds(self._timeout)
        while int(self._call("get", [_WORKERS])) < world_size:
            if time.monotonic() > deadline:
                raise DistStoreError("Wait timeout")
            time.sleep(0.01)

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            sock = self._connect(_seconds(self._timeout))
            sock.settimeout(None)   # the server answers within each request's timeout
            conn = self._local.conn = (sock, sock.makefile("rb"))
            self._connections.append(conn)
        return conn

    def _connect(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=max(seconds, 1.0))
            except OSError as e:
                if time.monotonic() > deadline:
                    raise DistNetworkError(f"Failed to connect to {self.host}:{self.port} within "
                                           f"{seconds:.0f} s: {e}") from e
                time.sleep(0.05)

    def _call(self, name, args, timeout=None):
        seconds = _seconds(self._timeout if timeout is None else timeout)
        request = json.dumps({"op": name, "args": _encode(list(args)), "timeout": seconds}).encode() + b"\n"
        sock, reader = self._connection()
        sock.sendall(request)
        line = reader.readline()
        if not line:
            raise DistNetworkError(f"The TCPStore server at {self.host}:{self.port} closed the connection")
        answer = json.loads(line)
        if "error" in answer:
            kind, message = answer["error"]
            raise {"DistStoreError": DistStoreError, "KeyError": KeyError, "TypeError": TypeError}.get(
                kind, ValueError)(message)
        return _decode(answer["ok"])

    def wait(self, keys, timeout=None):
        self._call("wait", [list(keys)], timeout)

    def num_keys(self):
        # PyTorch's server counts a key of its own among the keys (here: the count of stores).
        return self._call("num_keys", []) + 1

    def barrier(self, key, world_size, timeout=None):
        self._call("barrier", [key, world_size], timeout)

    def __del__(self):
        for sock, reader in getattr(self, "_connections", ()):
            reader.close()
            sock.close()


def _forward(name):
    def operation(self, *args):
        return self._call(name, args)
    operation.__name__ = name
    operation.__doc__ = getattr(Store, name).__doc__
    return operation


for _name in _OPERATIONS:
    if _name not in ("wait", "barrier", "num_keys"):
        setattr(TCPStore, _name, _forward(_name))
