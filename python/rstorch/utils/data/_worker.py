"""What runs inside a DataLoader worker process: its info, its fetch loop, and how its errors
travel back to the main process."""
import os
import pickle
import queue
import random
import sys
import traceback

from . import _datapipe_loading

__all__ = ["get_worker_info", "WorkerInfo"]

# How often an idle worker checks that the main process still exists (seconds).
_POLL_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """id, num_workers, seed and dataset (this worker's copy) of the current worker."""

    _frozen = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self._keys = tuple(kwargs)
        self._frozen = True

    def __setattr__(self, key, val):
        if self._frozen:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self._keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """The WorkerInfo of this process when it is a DataLoader worker, else None."""
    return _worker_info


class ExceptionWrapper:
    """An exception and its formatted traceback, picklable so it can cross processes."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError would print the message through repr(), escaping every newline.
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # An exception type whose constructor wants other arguments.
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch; they echo it back once ready."""

    def __init__(self, seed=None):
        self.seed = seed


def _seed_worker(seed, worker_id):
    import numpy as np
    import rstorch
    random.seed(seed)
    rstorch.manual_seed(seed)
    # NumPy gets its own well-mixed 128-bit state so workers never share a stream.
    np.random.seed(np.random.SeedSequence([worker_id, seed]).generate_state(4))


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        # `index` is a batch of placeholders: its length is the batch size.
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def _pack(data, worker_id):
    """Pickles a result here, so a result that cannot be pickled becomes a reported error
    instead of a silent failure in the queue's feeder thread."""
    try:
        return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        wrapped = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        return pickle.dumps(wrapped, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(payload):
    return pickle.loads(payload)


def _make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    kind = _IterableFetcher if iterable else _MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)


def _worker_loop(iterable, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    """Serves (task_idx, indices) requests from `index_queue` until it receives None."""
    global _worker_info
    try:
        import rstorch
        # A forked child inherits no kernel threads, only the parent's record of them: start a
        # fresh one-thread pool (workers parallelise across processes, not inside one).
        rstorch.set_num_threads(1)
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id)
        _datapipe_loading.seed_pipeline(dataset, base_seed)
        _datapipe_loading.shard_pipeline(dataset, num_workers, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # After an IterableDataset ends, requests already queued get no answer: the main
        # process skips them once it has seen this worker's stop marker.
        iteration_end = False
        parent = os.getppid()
        while True:
            try:
                request = index_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or os.getppid() != parent:
                    break
                continue
            if request is None:
                break
            if isinstance(request, _ResumeIteration):
                data_queue.put((request, None))
                iteration_end = False
                if request.seed is not None:
                    _seed_worker(request.seed + worker_id, worker_id)
                    _datapipe_loading.seed_pipeline(dataset, request.seed)
                try:
                    fetcher = _make_fetcher(iterable, dataset, auto_collation, collate_fn,
                                            drop_last)
                except Exception:
                    init_exception = ExceptionWrapper(
                        where=f"in DataLoader worker process {worker_id}")
                continue
            if done_event.is_set() or iteration_end:
                continue
            task_idx, index = request
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not iterable:
                        raise
                    data = _IterableDatasetStopIteration(worker_id)
                    iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((task_idx, _pack(data, worker_id)))
    except KeyboardInterrupt:
        pass  # the main process handles the interrupt
    if done_event.is_set():
        # Results no one will read must not keep this process alive at exit.
        data_queue.cancel_join_thread()
        data_queue.close()
