"""rstorch.utils.data: datasets, samplers, collation and the DataLoader, in and out of workers."""
import collections
import subprocess
import sys
import warnings

import numpy as np
import pytest

import rstorch as torch
from rstorch.utils.data import (
    BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset,
    RandomSampler, SequentialSampler, Subset, SubsetRandomSampler, TensorDataset,
    WeightedRandomSampler, default_collate, default_convert, get_worker_info, random_split,
)


def seeded(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": torch.tensor([float(i), float(i * i)]), "i": i, "name": f"s{i}"}


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError("sample 5 is broken")
        return torch.tensor(i)


class Stream(IterableDataset):
    """0..n-1, shared out between workers by stride."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def _record_worker(worker_id):
    info = get_worker_info()
    assert info.id == worker_id
    np.random.seed(1000 + worker_id)  # visible to the dataset below


class WorkerProbe(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([i, info.id, info.num_workers, int(np.random.get_state()[1][0] > 0)])


Point = collections.namedtuple("Point", "x y")


# ---- datasets -------------------------------------------------------------------------------

def test_tensor_dataset_rows_and_size_check():
    a, b = torch.arange(12).reshape(4, 3), torch.arange(4)
    ds = TensorDataset(a, b)
    assert len(ds) == 4
    x, y = ds[2]
    assert x.tolist() == [6, 7, 8] and y.item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(a, torch.arange(3))


def test_concat_dataset_indexing_and_errors():
    ds = ConcatDataset([TensorDataset(torch.arange(3)), TensorDataset(torch.arange(10, 14))])
    assert len(ds) == 7 and ds.cumulative_sizes == [3, 7]
    assert [ds[i][0].item() for i in range(7)] == [0, 1, 2, 10, 11, 12, 13]
    assert ds[-1][0].item() == 13 and ds[-7][0].item() == 0
    with pytest.raises(ValueError, match="absolute value of index"):
        ds[-8]
    with pytest.raises(AssertionError, match="empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    both = TensorDataset(torch.arange(2)) + TensorDataset(torch.arange(5))
    assert isinstance(both, ConcatDataset) and len(both) == 7


def test_chain_dataset():
    assert list(Stream(2) + Stream(3)) == [0, 1, 0, 1, 2]
    assert len(ChainDataset([Stream(2), Stream(4)])) == 6


def test_subset_maps_indices():
    ds = Subset(Squares(10), [7, 2, 9])
    assert len(ds) == 3
    assert ds[0]["i"] == 7 and ds[2]["i"] == 9
    assert [d["i"] for d in ds.__getitems__([1, 0])] == [2, 7]


# Sizes recorded from PyTorch: floors first, then the remainder one by one from split 0.
@pytest.mark.parametrize("n,fractions,expected", [
    (10, [0.5, 0.5], [5, 5]),
    (11, [0.3, 0.3, 0.4], [4, 3, 4]),   # floors 3,3,4 (11*0.4 is 4.4), remainder 1 to split 0
    (7, [0.1, 0.2, 0.7], [1, 2, 4]),    # floors 0,1,4 (7*0.7 is 4.8999...), remainder 2
    (5, [1 / 3, 1 / 3, 1 / 3], [2, 2, 1]),
])
def test_random_split_fraction_sizes_as_pytorch(n, fractions, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = random_split(range(n), fractions, generator=seeded(0))
    assert [len(p) for p in parts] == expected
    assert sorted(i for p in parts for i in p) == list(range(n))


def test_random_split_lengths_generator_and_errors():
    a = [list(p) for p in random_split(range(20), [5, 15], generator=seeded(4))]
    b = [list(p) for p in random_split(range(20), [5, 15], generator=seeded(4))]
    assert a == b and sorted(a[0] + a[1]) == list(range(20))
    # The split is the seeded permutation cut in order.
    assert a[0] + a[1] == torch.randperm(20, generator=seeded(4)).tolist()
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(5), [0.5, 1.5, -1.0])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.95, 0.05])


# ---- samplers -------------------------------------------------------------------------------

def test_sequential_and_batch_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    bs = BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    bs = BatchSampler(SequentialSampler(range(7)), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean"):
        BatchSampler(range(3), 2, 1)


def test_random_sampler_permutation_and_replacement():
    perm = list(RandomSampler(range(50), generator=seeded(1)))
    assert sorted(perm) == list(range(50)) and perm != list(range(50))
    assert perm == list(RandomSampler(range(50), generator=seeded(1)))
    # num_samples beyond the length: whole permutations, then a cut one.
    more = list(RandomSampler(range(5), num_samples=12, generator=seeded(2)))
    assert len(more) == 12 and sorted(more[:5]) == sorted(more[5:10]) == list(range(5))
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=70, generator=seeded(3)))
    assert len(drawn) == 70 and set(drawn) == {0, 1, 2}
    assert len(RandomSampler(range(3), replacement=True, num_samples=70)) == 70
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)


def test_random_sampler_without_generator_follows_manual_seed():
    torch.manual_seed(11)
    a = list(RandomSampler(range(30)))
    torch.manual_seed(11)
    assert list(RandomSampler(range(30))) == a


def test_subset_random_sampler():
    got = list(SubsetRandomSampler([10, 20, 30, 40], generator=seeded(0)))
    assert sorted(got) == [10, 20, 30, 40]
    assert got == [[10, 20, 30, 40][i] for i in torch.randperm(4, generator=seeded(0)).tolist()]


def test_weighted_random_sampler_distribution_and_zero_weights():
    s = WeightedRandomSampler([0.0, 1.0, 3.0, 0.0], 4000, generator=seeded(0))
    counts = np.bincount(list(s), minlength=4)
    assert counts[0] == counts[3] == 0
    assert abs(counts[2] / 4000 - 0.75) < 0.03
    no_repeat = list(WeightedRandomSampler([1, 5, 0, 2], 3, replacement=False, generator=seeded(1)))
    assert sorted(no_repeat) == [0, 1, 3]
    # Without replacement, heavy items come first far more often.
    firsts = [next(iter(WeightedRandomSampler([1, 50], 2, replacement=False, generator=seeded(k))))
              for k in range(200)]
    assert firsts.count(1) > 180
    with pytest.raises(RuntimeError):
        list(WeightedRandomSampler([1, 0, 0], 2, replacement=False))
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        WeightedRandomSampler([1.0], 0)


# ---- collation ------------------------------------------------------------------------------

def test_default_collate_types():
    t = default_collate([torch.tensor([1, 2]), torch.tensor([3, 4])])
    assert t.tolist() == [[1, 2], [3, 4]]
    ints = default_collate([1, 2, 3])
    assert ints.dtype == torch.int64 and ints.tolist() == [1, 2, 3]
    floats = default_collate([1.5, 2.0])
    assert floats.dtype == torch.float64
    assert default_collate([True, False]).dtype == torch.bool
    arr = default_collate([np.zeros((2, 2), np.float32), np.ones((2, 2), np.float32)])
    assert isinstance(arr, torch.Tensor) and arr.shape == (2, 2, 2) and arr.dtype == torch.float32
    scal = default_collate([np.int32(1), np.int32(4)])
    assert scal.dtype == torch.int32 and scal.tolist() == [1, 4]
    assert default_collate(["a", "b"]) == ["a", "b"]
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([np.array(["x"]), np.array(["y"])])


def test_default_collate_nested_structures():
    batch = [{"a": (1, 2.0), "p": Point(torch.tensor(1.0), "u"), "l": [1, [2, 3]]},
             {"a": (3, 4.0), "p": Point(torch.tensor(2.0), "v"), "l": [4, [5, 6]]}]
    out = default_collate(batch)
    assert isinstance(out["a"], list)  # tuples come back as lists, as in PyTorch
    assert out["a"][0].tolist() == [1, 3] and out["a"][1].dtype == torch.float64
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1.0, 2.0]
    assert tuple(out["p"].y) == ("u", "v")
    assert out["l"][0].tolist() == [1, 4]
    assert [t.tolist() for t in out["l"][1]] == [[2, 5], [3, 6]]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        default_collate([[1, 2], [3]])


def test_default_convert():
    assert default_convert((1, 2)) == [1, 2]
    out = default_convert({"a": np.arange(3), "b": "s", "c": Point(np.float32(2), 1)})
    assert isinstance(out["a"], torch.Tensor) and out["a"].tolist() == [0, 1, 2]
    assert out["b"] == "s" and out["c"].x.item() == 2.0 and out["c"].y == 1
    t = torch.ones(2)
    assert default_convert(t) is t


# ---- DataLoader -----------------------------------------------------------------------------

def test_batches_and_len():
    dl = DataLoader(TensorDataset(torch.arange(10)), batch_size=4)
    assert len(dl) == 3
    assert [b[0].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dl = DataLoader(TensorDataset(torch.arange(10)), batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b[0].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(3)))] == [[0], [1], [2]]


def test_no_auto_batching_uses_default_convert():
    dl = DataLoader([np.arange(2), np.arange(2) + 5], batch_size=None)
    got = list(dl)
    assert len(dl) == 2 and all(isinstance(b, torch.Tensor) for b in got)
    assert got[1].tolist() == [5, 6]


def test_shuffle_reproducible_with_generator():
    ds = TensorDataset(torch.arange(20))

    def epoch(seed):
        return [b[0].tolist() for b in DataLoader(ds, batch_size=6, shuffle=True,
                                                  generator=seeded(seed))]
    a = epoch(5)
    assert a == epoch(5) and a != epoch(6)
    assert sorted(sum(a, [])) == list(range(20)) and sum(a, []) != list(range(20))


def test_sampler_and_batch_sampler_arguments():
    ds = TensorDataset(torch.arange(10))
    dl = DataLoader(ds, batch_size=2, sampler=[9, 8, 7, 6, 5])
    assert [b[0].tolist() for b in dl] == [[9, 8], [7, 6], [5]]
    dl = DataLoader(ds, batch_sampler=[[0, 5], [1, 2, 3]])
    assert [b[0].tolist() for b in dl] == [[0, 5], [1, 2, 3]] and len(dl) == 2


def test_custom_collate_fn():
    dl = DataLoader(Squares(5), batch_size=2, collate_fn=lambda b: [d["i"] for d in b])
    assert list(dl) == [[0, 1], [2, 3], [4]]


def test_constructor_errors_and_frozen_attributes():
    ds = TensorDataset(torch.arange(4))
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)
    dl = DataLoader(ds, batch_size=2, pin_memory=True)  # accepted; nothing to pin on CPU
    with pytest.raises(ValueError, match="batch_size attribute should not be set after "
                                         "DataLoader is initialized"):
        dl.batch_size = 3
    assert dl.prefetch_factor is None
    assert DataLoader(ds, num_workers=1).prefetch_factor == 2


def test_iterable_dataset_single_process():
    dl = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]] and len(dl) == 3
    dl = DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]] and len(dl) == 2
    assert list(DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]  # ints stay ints
    assert get_worker_info() is None


# ---- worker processes -----------------------------------------------------------------------

def _batches(dl):
    out = []
    for b in dl:
        out.append((b["x"].tolist(), b["i"].tolist(), b["name"]))
    return out


@pytest.mark.parametrize("shuffle", [False, True])
def test_workers_give_the_same_batches_as_the_main_process(shuffle):
    def run(workers):
        return _batches(DataLoader(Squares(23), batch_size=4, shuffle=shuffle, num_workers=workers,
                                   generator=seeded(9)))
    single = run(0)
    assert len(single) == 6
    assert run(2) == single
    assert run(3) == single


def test_workers_preserve_order_with_uneven_work():
    class Slow(Dataset):
        def __len__(self):
            return 12

        def __getitem__(self, i):
            import time
            time.sleep(0.03 if i % 4 == 0 else 0)  # the first worker's batches lag
            return i

    dl = DataLoader(Slow(), batch_size=2, num_workers=2)
    assert [b.tolist() for b in dl] == [[2 * k, 2 * k + 1] for k in range(6)]
    unordered = [b.tolist() for b in DataLoader(Slow(), batch_size=2, num_workers=2,
                                                in_order=False)]
    assert sorted(unordered) == [[2 * k, 2 * k + 1] for k in range(6)]


def test_worker_info_and_init_fn():
    dl = DataLoader(WorkerProbe(), batch_size=None, num_workers=2, worker_init_fn=_record_worker)
    rows = [b.tolist() for b in dl]
    assert [r[0] for r in rows] == list(range(6))
    assert {r[1] for r in rows} == {0, 1} and all(r[2] == 2 for r in rows)


def test_worker_exception_surfaces_with_its_traceback():
    dl = DataLoader(Failing(), batch_size=2, num_workers=2)
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    with pytest.raises(ValueError, match=r"(?s)Caught ValueError in DataLoader worker process 0"
                                         r".*sample 5 is broken"):
        next(it)
    it._shutdown_workers()


def test_worker_init_fn_exception_surfaces():
    def bad_init(worker_id):
        raise KeyError("no config")

    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        list(DataLoader(TensorDataset(torch.arange(4)), num_workers=1, worker_init_fn=bad_init))


def test_unpicklable_batch_is_an_error_not_a_hang():
    dl = DataLoader(range(4), batch_size=2, num_workers=1, timeout=30,
                    collate_fn=lambda b: (lambda: b))
    with pytest.raises(Exception, match="(?s)Caught .* in DataLoader worker process 0"):
        next(iter(dl))


def test_iterable_dataset_with_workers():
    got = [b.tolist() for b in DataLoader(Stream(7), batch_size=2, num_workers=2)]
    # Each worker yields its own batches; they alternate in worker order, as in PyTorch.
    assert got == [[0, 2], [1, 3], [4, 6], [5]]
    flat = sorted(x for b in DataLoader(Stream(10), batch_size=3, num_workers=3) for x in b.tolist())
    assert flat == list(range(10))


def test_persistent_workers_across_epochs():
    dl = DataLoader(Squares(9), batch_size=2, num_workers=2, persistent_workers=True,
                    shuffle=True, generator=seeded(0))
    first = _batches(dl)
    it = dl._iterator
    pids = list(it._worker_pids)
    second = _batches(dl)
    assert dl._iterator is it and it._worker_pids == pids
    assert all(w.is_alive() for w in it._workers)
    for epoch in (first, second):
        assert sorted(i for b in epoch for i in b[1]) == list(range(9))
    # Abandoning an epoch half-way leaves nothing behind for the next.
    partial = iter(dl)
    next(partial)
    third = _batches(dl)
    assert sorted(i for b in third for i in b[1]) == list(range(9))
    stream = DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in stream] == [b.tolist() for b in stream] == [[0, 2], [1, 3], [4]]
    it._shutdown_workers()
    stream._iterator._shutdown_workers()
    assert not any(w.is_alive() for w in it._workers)


def test_workers_shut_down_after_epoch():
    dl = DataLoader(TensorDataset(torch.arange(6)), batch_size=2, num_workers=2)
    it = iter(dl)
    list(it)
    assert not any(w.is_alive() for w in it._workers)


def test_import_rstorch_does_not_import_data():
    code = ("import sys, rstorch; assert 'rstorch.utils.data' not in sys.modules; "
            "rstorch.utils.data.DataLoader; assert 'rstorch.utils.data' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


class Stalls(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        import time
        time.sleep(1.5)  # well past the loader's timeout
        return i


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        import os
        os._exit(3)  # a crash no exception handler sees


def test_timeout():
    dl = DataLoader(Stalls(), num_workers=1, timeout=0.3)
    it = iter(dl)
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(it)
    it._shutdown_workers()


def test_dead_worker_is_reported(monkeypatch):
    from rstorch.utils.data import dataloader
    monkeypatch.setattr(dataloader, "_STATUS_CHECK_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly"):
        list(DataLoader(Dies(), num_workers=1))


class BigOps(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = torch.ones(600, 600)
        return (a @ a).sum() + a.exp().sum()  # large enough to go parallel in the parent


def test_forked_workers_run_parallel_kernels():
    # The parent's kernel thread pool is started before the fork; a child that used the
    # inherited pool would wait forever on threads that do not exist in it.
    a = torch.ones(600, 600)
    expected = ((a @ a).sum() + a.exp().sum()).item()
    got = [b.item() for b in DataLoader(BigOps(), batch_size=None, num_workers=2, timeout=30,
                                        multiprocessing_context="fork")]
    assert got == [expected, expected]
