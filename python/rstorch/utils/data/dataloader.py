"""DataLoader: batches samples from a dataset, in this process or in worker processes."""
import itertools
import multiprocessing
import queue

from . import _datapipe_loading, _worker
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

get_worker_info = _worker.get_worker_info

# How often the main process, waiting for a batch with no timeout set, checks its workers live.
_STATUS_CHECK_INTERVAL = 5.0


class _InfiniteConstantSampler(Sampler):
    """Endless placeholders: an IterableDataset decides itself when the data ends."""

    def __iter__(self):
        while True:
            yield None


def _base_seed(generator):
    import rstorch
    return int(rstorch.randint(0, 2**62, (), dtype=rstorch.int64, generator=generator).item())


class DataLoader:
    """Combines a dataset and a sampler, and iterates over batches of the dataset."""

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        # Pinned memory only matters for copies to an accelerator; on CPU it is a no-op.
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if _datapipe_loading.is_datapipe(dataset, "iter"):
                if shuffle is not None:
                    from .graph_settings import apply_shuffle_settings
                    # The loader keeps the pipe it was given, as PyTorch's does: a Shuffler this
                    # appends (with its warning) to a pipe without one is not used.
                    apply_shuffle_settings(dataset, shuffle=shuffle)
            elif shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True

    def __setattr__(self, attr, val):
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if not self.persistent_workers:
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self):
        if self._iterable:
            # The dataset's own length, counted in batches (each worker may yield that many).
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._start_epoch(loader)

    def _start_epoch(self, loader):
        # The seed is drawn before the sampler draws anything, so one seeded generator gives
        # the same order with or without workers.
        self._base_seed = _base_seed(loader.generator)
        _datapipe_loading.seed_pipeline(self._dataset, self._base_seed)
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __iter__(self):
        return self

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self):
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        _datapipe_loading.shard_pipeline(self._dataset)
        self._fetcher = _worker._make_fetcher(self._iterable, self._dataset, self._auto_collation,
                                              self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()
        return self._fetcher.fetch(index)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Keeps up to prefetch_factor tasks in flight per worker and hands results back in
    sampler order (or arrival order when in_order=False)."""

    def __init__(self, loader):
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._in_order = loader.in_order
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._shutdown = False
        self._workers = []
        self._index_queues = []
        super().__init__(loader)
        self._data_queue = ctx.Queue()
        self._done_event = ctx.Event()
        for worker_id in range(self._num_workers):
            index_queue = ctx.Queue()
            # Never block interpreter exit on indices a dead worker will not read.
            index_queue.cancel_join_thread()
            w = ctx.Process(
                target=_worker._worker_loop,
                args=(loader._iterable, loader.dataset, index_queue, self._data_queue,
                      self._done_event, loader._auto_collation, loader.collate_fn,
                      loader.drop_last, self._base_seed, loader.worker_init_fn, worker_id,
                      self._num_workers),
                daemon=True)
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._worker_pids = [w.pid for w in self._workers]
        self._prime(first_epoch=True)

    def _reset(self, loader):
        """A new epoch over the same persistent workers."""
        self._start_epoch(loader)
        self._prime(first_epoch=False)

    def _prime(self, first_epoch):
        self._send_idx = 0  # next task to send
        self._rcvd_idx = 0  # next task to hand to the caller
        # task_idx -> (worker_id,) while in flight, (worker_id, data) once received.
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_epoch:
            # Persistent workers: each acknowledges the new epoch; anything left over from the
            # previous epoch arrives before the acknowledgement and is dropped.
            for q in self._index_queues:
                q.put(_worker._ResumeIteration(self._base_seed))
            pending = self._num_workers
            while pending:
                got = self._get_data()
                if isinstance(got[0], _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._workers_active[worker_id]:
                break
        else:
            return  # every worker has finished its IterableDataset
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        """One (task_idx, payload) from the workers, watching for a timeout or a dead worker."""
        if self._timeout > 0:
            try:
                return self._data_queue.get(timeout=self._timeout)
            except queue.Empty:
                raise RuntimeError(
                    f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return self._data_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                dead = [str(w.pid) for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited "
                                       f"unexpectedly") from None

    def _next_data(self):
        while True:
            if self._in_order:
                while self._rcvd_idx < self._send_idx and self._rcvd_idx not in self._task_info:
                    self._rcvd_idx += 1  # sent to a worker whose data ran out: never answered
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and len(info) == 2:
                    del self._task_info[self._rcvd_idx]
                    self._rcvd_idx += 1
                    return self._process(info[1])
            if self._tasks_outstanding == 0:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration

            idx, payload = self._get_data()
            self._tasks_outstanding -= 1
            data = _worker._unpack(payload)
            if isinstance(data, _worker._IterableDatasetStopIteration):
                self._retire_worker(idx, data.worker_id)
                continue
            if not self._in_order:
                del self._task_info[idx]
                return self._process(data)
            self._task_info[idx] += (data,)

    def _retire_worker(self, idx, worker_id):
        """A worker's IterableDataset ended: it answers none of the tasks queued after `idx`."""
        del self._task_info[idx]
        self._workers_active[worker_id] = False
        for task, info in list(self._task_info.items()):
            if len(info) == 1 and info[0] == worker_id:
                del self._task_info[task]
                self._tasks_outstanding -= 1
        if not self._persistent:
            self._index_queues[worker_id].put(None)
        self._try_put_index()

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for q in self._index_queues:
            try:
                q.put(None)
            except Exception:  # the queue may already be closed at interpreter exit
                pass
        for w in self._workers:
            w.join(timeout=_STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()
        self._data_queue.cancel_join_thread()
        self._data_queue.close()

    def __del__(self):
        if not hasattr(self, "_shutdown"):
            return  # __init__ failed before anything started
        try:
            self._shutdown_workers()
        except Exception:
            pass
