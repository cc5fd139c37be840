"""DataPipes beyond the recorded parity cases (tests/python/test_datapipes.py): randomness
(shuffle orders are permutations, fixed by seeds, shared by DataLoader workers so sharding stays
exact), pickling (pipes go to worker processes), the functional-form registry, typing
decorators, the pipeline graph, and lazy loading."""
import pickle
import subprocess
import sys
import warnings
from typing import Iterator

import pytest

import rstorch
from rstorch.utils.data import (
    DataChunk, DataLoader, Dataset, DFIterDataPipe, IterableDataset, IterDataPipe, MapDataPipe,
    argument_validation, functional_datapipe, runtime_validation, runtime_validation_disabled,
)
from rstorch.utils.data import graph, graph_settings
from rstorch.utils.data.datapipes.iter import IterableWrapper, Shuffler
from rstorch.utils.data.datapipes.map import SequenceWrapper
from rstorch.utils.data.datapipes.utils.common import StreamWrapper


def _double(x):
    return 2 * x


def _parity(x):
    return x % 2


def _ints(result):
    return [int(x) for x in result]


# --- shuffling and seeds ---------------------------------------------------------------------

def test_shuffle_is_a_permutation_fixed_by_the_global_seed():
    dp = IterableWrapper(range(50)).shuffle(buffer_size=8)
    rstorch.manual_seed(0)
    a = list(dp)
    rstorch.manual_seed(0)
    b = list(dp)
    rstorch.manual_seed(1)
    c = list(dp)
    assert sorted(a) == list(range(50)) and a == b and a != c and a != list(range(50))


def test_set_seed_fixes_one_iteration_then_seeds_come_from_the_generator():
    dp = IterableWrapper(range(20)).shuffle().set_seed(5)
    first = list(dp)
    assert first == list(IterableWrapper(range(20)).shuffle().set_seed(5))
    rstorch.manual_seed(3)
    second = list(dp)
    rstorch.manual_seed(3)
    assert second == list(dp) and sorted(second) == list(range(20))


def test_map_shuffle_is_a_permutation_fixed_by_the_global_seed():
    dp = SequenceWrapper(list("abcdefgh")).shuffle()
    rstorch.manual_seed(7)
    a = list(dp)
    rstorch.manual_seed(7)
    assert a == list(dp) and sorted(a) == list("abcdefgh")


def test_single_process_loader_seeds_shuffle_from_its_generator():
    dp = IterableWrapper(range(30)).shuffle()

    def epoch(seed):
        g = rstorch.Generator()
        g.manual_seed(seed)
        return _ints(DataLoader(dp, batch_size=None, generator=g))

    assert epoch(1) == epoch(1) != epoch(2)
    assert sorted(epoch(3)) == list(range(30))


@pytest.mark.parametrize("num_workers", [2, 3])
def test_workers_shuffle_alike_so_sharding_loses_and_repeats_nothing(num_workers):
    dp = IterableWrapper(range(40)).shuffle().sharding_filter()
    rstorch.manual_seed(11)
    a = _ints(DataLoader(dp, batch_size=None, num_workers=num_workers))
    rstorch.manual_seed(11)
    b = _ints(DataLoader(dp, batch_size=None, num_workers=num_workers))
    assert sorted(a) == list(range(40)) and a == b and a != list(range(40))


def test_persistent_workers_reshuffle_each_epoch():
    dp = IterableWrapper(range(24)).shuffle().sharding_filter()
    loader = DataLoader(dp, batch_size=4, num_workers=2, persistent_workers=True)
    epochs = [[int(v) for batch in loader for v in batch] for _ in range(2)]
    assert all(sorted(e) == list(range(24)) for e in epochs) and epochs[0] != epochs[1]


def test_workers_shard_without_a_shuffler():
    out = _ints(DataLoader(IterableWrapper(range(10)).sharding_filter(), batch_size=None,
                           num_workers=2))
    assert out == list(range(10))  # worker 0 has the even items, worker 1 the odd, in turn


def test_loader_shuffle_false_turns_shufflers_off():
    dp = IterableWrapper(range(8)).shuffle()
    assert _ints(DataLoader(dp, batch_size=None, shuffle=False)) == list(range(8))


def test_loader_shuffle_true_without_shuffler_warns():
    with pytest.warns(UserWarning, match="does not contain a `Shuffler`"):
        DataLoader(IterableWrapper(range(3)), shuffle=True)


def test_map_pipe_in_loader_shuffles_like_a_dataset():
    loader = DataLoader(SequenceWrapper(list(range(12))), batch_size=4, shuffle=True)
    rstorch.manual_seed(0)
    values = [int(v) for batch in loader for v in batch]
    assert sorted(values) == list(range(12)) and values != list(range(12))


# --- pickling --------------------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda: IterableWrapper(range(10)).map(_double).filter(bool).batch(3),
    lambda: IterableWrapper(range(10)).groupby(_parity, keep_key=True),
    lambda: IterableWrapper(range(9)).shuffle().set_seed(4).sharding_filter(),
    lambda: IterableWrapper(range(6)).fork(2)[1],
    lambda: IterableWrapper(range(6)).demux(2, _parity)[1],
    lambda: IterableWrapper(range(4)).zip(IterableWrapper("abcd")).mux(IterableWrapper("xy")),
    lambda: SequenceWrapper(list(range(7))).map(_double).batch(2),
])
def test_pipelines_survive_pickling(build):
    copy = pickle.loads(pickle.dumps(build()))
    assert list(copy) == list(build())


def test_pickled_shuffler_keeps_its_seed_and_generator():
    dp = IterableWrapper(range(15)).shuffle().set_seed(9)
    assert list(pickle.loads(pickle.dumps(dp))) == list(dp)


def test_datachunk_pickles_with_its_items():
    chunk = pickle.loads(pickle.dumps(DataChunk([1, 2])))
    assert type(chunk) is DataChunk and chunk == [1, 2] and chunk.items == [1, 2]


_IDENTITY = lambda x: x  # noqa: E731 - a module-level lambda, which pickle cannot send either


def test_lambdas_and_local_functions_warn_that_pickle_cannot_send_them():
    def local(x):
        return x

    with pytest.warns(UserWarning, match="Lambda function is not supported by pickle"):
        IterableWrapper([1]).map(_IDENTITY)
    with pytest.warns(UserWarning, match="Local function is not supported by pickle"):
        IterableWrapper([1]).map(local)


# --- registry, iteration rules ----------------------------------------------------------------

@functional_datapipe("_test_repeat")
class _Repeat(IterDataPipe[int]):
    def __init__(self, source, times=2):
        self.source = source
        self.times = times

    def __iter__(self) -> Iterator[int]:
        for x in self.source:
            for _ in range(self.times):
                yield x


@functional_datapipe("_test_pair")
class _Pair(MapDataPipe):
    def __init__(self, source):
        self.source = source

    def __getitem__(self, i):
        return (self.source[i], i)

    def __len__(self):
        return len(self.source)


def test_functional_datapipe_registers_on_the_matching_base():
    assert list(IterableWrapper([1, 2])._test_repeat(times=3)) == [1, 1, 1, 2, 2, 2]
    assert SequenceWrapper("ab")._test_pair()[1] == ("b", 1)
    assert "_test_repeat" in IterDataPipe.functions and "_test_repeat" not in MapDataPipe.functions
    assert "_test_repeat" in dir(IterableWrapper([]))
    with pytest.raises(AttributeError, match="object has no attribute '_test_repeat"):
        SequenceWrapper("a")._test_repeat  # noqa: B018 - the lookup is what is tested


def test_iterating_calls_reset():
    class Counting(IterDataPipe):
        resets = 0

        def reset(self):
            Counting.resets += 1

        def __iter__(self):
            yield 1

    dp = Counting()
    list(dp)
    list(dp)
    assert Counting.resets == 2


def test_an_error_names_the_innermost_pipe_once():
    def boom(x):
        raise KeyError("k")

    with pytest.raises(KeyError) as info:
        list(IterableWrapper([1]).map(boom).batch(1))
    message = str(info.value.args[0])
    assert message.count("This exception is thrown by __iter__ of") == 1
    assert "MapperIterDataPipe(" in message


def test_restarting_a_fork_child_before_the_others_finish_warns():
    a, b = IterableWrapper(range(4)).fork(2)
    unfinished = iter(a)
    next(unfinished)
    list(b)
    with pytest.warns(UserWarning, match="Some child DataPipes are not exhausted"):
        next(iter(b))
    del unfinished


def test_datapipes_are_datasets():
    assert issubclass(IterDataPipe, IterableDataset) and issubclass(MapDataPipe, Dataset)
    assert issubclass(DFIterDataPipe, IterDataPipe) and DFIterDataPipe()._is_dfpipe()
    assert Dataset[int] is not None and IterDataPipe[str] is not None


# --- typing decorators -----------------------------------------------------------------------

class _Ints(IterDataPipe[int]):
    def __init__(self, items):
        self.items = items

    @runtime_validation
    def __iter__(self):
        yield from self.items


def test_runtime_validation_checks_each_item():
    assert list(_Ints([1, 2])) == [1, 2]
    with pytest.raises(RuntimeError, match="Expected an instance as subtype of int"):
        list(_Ints([1, "a"]))
    with runtime_validation_disabled():
        assert list(_Ints([1, "a"])) == [1, "a"]


def test_runtime_validation_rejects_other_functions():
    with pytest.raises(TypeError, match="Can not decorate function f"):
        @runtime_validation
        def f(self):
            yield 1


def test_argument_validation_compares_element_types():
    @argument_validation
    def takes_ints(dp: IterDataPipe[int]):
        return "ok"

    class Strs(IterDataPipe[str]):
        def __iter__(self):
            yield "a"

    assert takes_ints(_Ints([1])) == "ok"
    assert takes_ints(IterableWrapper([1])) == "ok"  # an untyped pipe yields Any
    with pytest.raises(TypeError, match="as a subtype of hint int, but found str"):
        takes_ints(Strs())
    with pytest.raises(TypeError, match="Expected argument 'dp' as an IterDataPipe"):
        takes_ints([1])


def test_reinforce_type_narrows_an_instance():
    dp = IterableWrapper([1, 2]).reinforce_type(int)
    assert dp.type.param is int and IterableWrapper.type.param is not int
    with pytest.raises(TypeError, match="Expected 'expected_type' as subtype of int"):
        _Ints([1]).reinforce_type(str)


# --- the graph, files ------------------------------------------------------------------------

def test_traverse_dps_and_random_seeds():
    src = IterableWrapper(range(10))
    top = src.shuffle().zip(src.map(_double).shuffle())
    g = graph.traverse_dps(top)
    ((root, inputs),) = g.values()
    assert root is top and len(inputs) == 2
    shufflers = [dp for dp in graph_settings.get_all_graph_pipes(g) if isinstance(dp, Shuffler)]
    assert len(shufflers) == 2

    def seeds(seed):
        rng = rstorch.Generator()
        rng.manual_seed(seed)
        graph_settings.apply_random_seed(top, rng)
        return [s._seed for s in shufflers]

    assert seeds(1) == seeds(1) != seeds(2)
    with pytest.raises(RuntimeError, match="Expected `IterDataPipe` or `MapDataPipe`"):
        graph.traverse_dps([1])


def test_filter_closes_the_streams_it_drops(tmp_path):
    for name in ("keep.txt", "drop.txt"):
        (tmp_path / name).write_text(name)
    from rstorch.utils.data.datapipes.iter import FileLister

    opened = []

    def keep(item):
        opened.append(item[1])
        return item[0].endswith("keep.txt")

    kept = list(FileLister(str(tmp_path)).open_files().filter(keep))
    assert [p for p, _ in kept] == [str(tmp_path / "keep.txt")]
    assert [s.closed for s in opened] == [True, False]  # sorted: drop.txt comes first
    kept[0][1].close()


def test_stream_wrapper_parent_closes_after_last_child(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("x")
    parent = StreamWrapper(open(path))
    child = StreamWrapper(open(path), parent_stream=parent)
    parent.autoclose()
    assert not parent.closed
    child.close()
    assert parent.closed and repr(child).startswith("StreamWrapper<")


# --- loading ---------------------------------------------------------------------------------

def test_datapipes_load_only_when_used():
    code = ("import sys, rstorch.utils.data as d; d.DataLoader([1]);"
            "assert 'rstorch.utils.data.datapipes' not in sys.modules;"
            "d.IterDataPipe; assert 'rstorch.utils.data.datapipes.iter' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_utils_data_exports_what_pytorch_exports():
    import rstorch.utils.data as d
    for name in ("DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe",
                 "argument_validation", "functional_datapipe", "guaranteed_datapipes_determinism",
                 "non_deterministic", "runtime_validation", "runtime_validation_disabled"):
        assert name in d.__all__ and callable(getattr(d, name))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d.datapipes.iter.IterableWrapper is IterableWrapper
