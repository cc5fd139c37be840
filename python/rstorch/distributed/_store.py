"""Key-value stores (PyTorch's `Store` API): `HashStore` within one process, `FileStore` between
processes sharing a file system, `PrefixStore` over another store; `TCPStore` (in _tcp_store.py)
between machines. Values are bytes (a str is stored as its UTF-8 encoding); `get` and `wait` block
until the keys exist or the store's timeout passes (then DistStoreError "Wait timeout").

Every store is built on two primitives of its own: `_atomic(fn)` runs `fn(mapping)` with no other
user of the store in between (the mapping may be changed), and `_wait_until(predicate, seconds)`
blocks until `predicate(mapping)` holds. The operations below are written once on top of them."""
import contextlib
import datetime
import fcntl
import json
import os
import threading
import time

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library."""


class DistBackendError(DistError):
    """Raised when a backend error occurs in distributed."""


class DistStoreError(DistError):
    """Raised when an error occurs in the distributed store."""


class DistNetworkError(DistError):
    """Raised when a network error occurs in distributed."""


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, list):   # PyTorch also takes a list of byte values
        return bytes(value)
    raise TypeError(f"store values are str or bytes, got {type(value).__name__}")


def _seconds(timeout):
    return timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)


class Store:
    """The operations every store offers; subclasses give `_atomic` and `_wait_until`."""

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = timeout if isinstance(timeout, datetime.timedelta) else datetime.timedelta(seconds=timeout)

    def _atomic(self, fn):
        raise RuntimeError("Not implemented.")

    def _wait_until(self, predicate, seconds):
        raise RuntimeError("Not implemented.")

    def set(self, key, value):
        value = _as_bytes(value)
        self._atomic(lambda m: m.__setitem__(key, value))

    def _timeout_error(self, keys, seconds, call):
        """What a get or wait that timed out raises (each store words it as PyTorch's does)."""
        return DistStoreError("Wait timeout")

    def _await(self, keys, timeout, call):
        seconds = _seconds(self._timeout if timeout is None else timeout)
        if not self._wait_until(lambda m: all(k in m for k in keys), seconds):
            raise self._timeout_error(keys, seconds, call)

    def get(self, key):
        self._await([key], None, "get")
        return self._atomic(lambda m: m[key])

    def add(self, key, amount):
        def add(m):
            total = int(m.get(key, b"0")) + int(amount)
            m[key] = str(total).encode()
            return total
        return self._atomic(add)

    def append(self, key, value):
        value = _as_bytes(value)
        self._atomic(lambda m: m.__setitem__(key, m.get(key, b"") + value))

    def compare_set(self, key, expected_value, desired_value):
        """Set `desired_value` if the key holds `expected_value` (or is absent and `expected_value`
        is empty); returns the value the key holds afterwards (`expected_value` when absent)."""
        expected, desired = _as_bytes(expected_value), _as_bytes(desired_value)

        def swap(m):
            if key not in m:
                if expected:
                    return expected
                m[key] = desired
                return desired
            if m[key] == expected:
                m[key] = desired
            return m[key]
        return self._atomic(swap)

    def multi_get(self, keys):
        self._await(list(keys), None, "get")
        return self._atomic(lambda m: [m[k] for k in keys])

    def multi_set(self, keys, values):
        pairs = [(k, _as_bytes(v)) for k, v in zip(keys, values, strict=True)]
        self._atomic(lambda m: m.update(pairs))

    def check(self, keys):
        return self._atomic(lambda m: all(k in m for k in keys))

    def delete_key(self, key):
        return self._atomic(lambda m: m.pop(key, None) is not None)

    def num_keys(self):
        return self._atomic(len)

    def list_keys(self):
        return self._atomic(list)

    def has_extended_api(self):
        return True

    def wait(self, keys, timeout=None):
        self._await(list(keys), timeout, "wait")

    def barrier(self, key, world_size, timeout=None):
        """Block until `world_size` callers have reached the barrier named `key`."""
        self.add(key, 1)
        seconds = _seconds(self._timeout if timeout is None else timeout)
        if not self._wait_until(lambda m: int(m.get(key, b"0")) >= world_size, seconds):
            raise DistStoreError("Wait timeout")

    def queue_push(self, key, value):
        value = _as_bytes(value)
        self._atomic(lambda m: m.__setitem__(_queue(key), m.get(_queue(key), []) + [value]))

    def queue_pop(self, key, block=True):
        if block:
            seconds = _seconds(self._timeout)
            if not self._wait_until(lambda m: bool(m.get(_queue(key))), seconds):
                raise DistStoreError("Wait timeout")

        def pop(m):
            items = m.get(_queue(key))
            if not items:
                raise DistStoreError(f"Key {key} not found in queue")
            m[_queue(key)] = items[1:]
            return items[0]
        return self._atomic(pop)

    def queue_len(self, key):
        return self._atomic(lambda m: len(m.get(_queue(key), [])))


def _queue(key):
    """A queue's entry in a store's mapping: hidden, and apart from the plain key of that name."""
    return "\0queue\0" + key


class HashStore(Store):
    """A thread-safe store in this process's memory."""

    def __init__(self):
        super().__init__()
        self._map = _Mapping()
        self._changed = threading.Condition()

    def _atomic(self, fn):
        with self._changed:
            result = fn(self._map)
            self._changed.notify_all()
        return result

    def _wait_until(self, predicate, seconds):
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self._map), timeout=seconds)


class _Mapping(dict):
    """A store's keys. Keys starting with NUL (queues, a FileStore's count of users) are held in the
    same mapping but neither counted nor listed."""

    def __len__(self):
        return sum(1 for k in dict.__iter__(self) if not k.startswith("\0"))

    def __iter__(self):
        return (k for k in dict.__iter__(self) if not k.startswith("\0"))


_USERS = "\0users"


class FileStore(Store):
    """A store in a file that processes on one machine (or a shared file system) open by name. The
    file holds the mapping as JSON; each operation takes an exclusive lock on it. `world_size` is
    the number of users: the last one to be garbage-collected removes the file, as PyTorch's does.
    As PyTorch's, it counts its count of users among its keys, says every delete_key succeeded, and
    has no queues."""

    def _timeout_error(self, keys, seconds, call):
        if call == "get":
            return RuntimeError(f"Timeout waiting for key: {keys[0]} after {int(seconds * 1000)} ms")
        return RuntimeError("Wait timeout")

    def num_keys(self):
        return super().num_keys() + 1

    def delete_key(self, key):
        super().delete_key(key)
        return True

    def has_extended_api(self):
        return False

    def _no_queues(self, *args, **kwargs):
        raise NotImplementedError("queue support is not implemented.")

    queue_push = queue_pop = queue_len = _no_queues

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        with open(self.path, "a"):
            pass
        self._atomic(lambda m: m.__setitem__(_USERS, m.get(_USERS, []) + [b"1"]))

    @contextlib.contextmanager
    def _locked(self):
        with open(self.path, "r+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield f
            finally:
                f.flush()   # what was written reaches the file before another user may read it
                fcntl.flock(f, fcntl.LOCK_UN)

    def _atomic(self, fn):
        with self._locked() as f:
            text = f.read()
            mapping = _Mapping(_decode(json.loads(text)) if text else {})
            before = dict(mapping)
            result = fn(mapping)
            if dict(mapping) != before:
                f.seek(0)
                f.truncate()
                f.write(json.dumps(_encode(mapping)))
        return result

    def _wait_until(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while not self._atomic(predicate):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def __del__(self):
        try:
            def leave(m):
                m[_USERS] = m.get(_USERS, [])[1:]
                return len(m[_USERS])
            if self.world_size > 0 and self._atomic(leave) == 0:
                os.remove(self.path)
        except Exception:  # noqa: BLE001 (a finalizer, possibly at interpreter exit: nothing to report to)
            pass


def _encode(mapping):
    """JSON of a mapping of bytes (and queues: lists of bytes), values as hex."""
    return {k: [v.hex() for v in value] if isinstance(value, list) else value.hex()
            for k, value in dict.items(mapping)}


def _decode(data):
    return {k: [bytes.fromhex(v) for v in value] if isinstance(value, list) else bytes.fromhex(value)
            for k, value in data.items()}


class PrefixStore(Store):
    """Another store's keys under `prefix + "/"`."""

    def __init__(self, prefix, store):
        super().__init__()
        self.underlying_store = store
        self._prefix = prefix + "/"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        # The waits happen in the underlying store, with its timeout.
        self.underlying_store.set_timeout(timeout)

    def _key(self, key):
        return self._prefix + key

    def set(self, key, value):
        self.underlying_store.set(self._key(key), value)

    def get(self, key):
        return self.underlying_store.get(self._key(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._key(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._key(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._key(key), expected_value, desired_value)

    def multi_get(self, keys):
        return self.underlying_store.multi_get([self._key(k) for k in keys])

    def multi_set(self, keys, values):
        self.underlying_store.multi_set([self._key(k) for k in keys], values)

    def check(self, keys):
        return self.underlying_store.check([self._key(k) for k in keys])

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._key(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    def list_keys(self):
        return [k[len(self._prefix):] for k in self.underlying_store.list_keys() if k.startswith(self._prefix)]

    def has_extended_api(self):
        return self.underlying_store.has_extended_api()

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._key(k) for k in keys], timeout)

    def barrier(self, key, world_size, timeout=None):
        self.underlying_store.barrier(self._key(key), world_size, timeout)

    def queue_push(self, key, value):
        self.underlying_store.queue_push(self._key(key), value)

    def queue_pop(self, key, block=True):
        return self.underlying_store.queue_pop(self._key(key), block)

    def queue_len(self, key):
        return self.underlying_store.queue_len(self._key(key))
