"""DataPipes (torch.utils.data.datapipes), their use by DataLoader, and
optim.swap_in_optimizer_params_and_state, run the same way on either framework: one list of
cases over a framework module `torch` (tests/record_datapipes.py runs it on PyTorch and writes
fixtures/datapipes.json, tests/python/test_datapipes.py runs it on rstorch and compares).

Only deterministic outputs are recorded: shuffles are seeded with `set_seed` (Python's own
generator, the same in both), never from the framework's generator. A case's result is its
encoded output; an error is recorded as [type name, message]."""
import importlib
import os
import tempfile
import warnings


def encode(x):
    """A JSON-able form keeping what the comparison needs: tuples, DataChunks and tensors are
    tagged so that a list does not pass for any of them."""
    if hasattr(x, "tolist") and hasattr(x, "requires_grad"):
        return {"tensor": x.detach().tolist(), "dtype": str(x.dtype).split(".")[-1]}
    if type(x).__name__ == "DataChunk":
        return {"chunk": [encode(v) for v in x]}
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        items = sorted(x.items(), key=lambda kv: str(kv[0]))  # key order is not compared
        return {"dict": [[encode(k), encode(v)] for k, v in items]}
    if isinstance(x, bytes):
        return {"bytes": x.decode("latin-1")}
    if isinstance(x, (int, float, str, bool)) or x is None:
        return x
    return {"repr": type(x).__name__}


def capture(fn):
    """fn()'s encoded result, or its error as [type name, message]; warnings are dropped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return encode(fn())
        except Exception as e:  # noqa: BLE001 - the error is the recorded result
            return [type(e).__name__, str(e)]


def _double(x):
    return x * 2


def _add(a, b):
    return a + b


def _is_even(x):
    return x % 2 == 0


def _mod3(x):
    return x % 3


def _parity(x):
    return x % 2


def _none_for_3(x):
    return None if x == 3 else x % 2


def _fail_on_3(x):
    if x == 3:
        raise ValueError("three")
    return x


def _first_letter(s):
    return s[0]


def cases(torch):
    """name -> zero-argument function, over the framework module `torch`."""
    name = torch.__name__
    data = importlib.import_module(f"{name}.utils.data")
    it = importlib.import_module(f"{name}.utils.data.datapipes.iter")
    mp = importlib.import_module(f"{name}.utils.data.datapipes.map")
    sharding = importlib.import_module(f"{name}.utils.data.datapipes.iter.sharding")
    graph_settings = importlib.import_module(f"{name}.utils.data.graph_settings")
    IW, SW = it.IterableWrapper, mp.SequenceWrapper
    P = sharding.SHARDING_PRIORITIES

    def r(n=10):
        return IW(range(n))

    def interleave(*pipes):
        """Reads the pipes' iterators in turn, one item each, until all ran out."""
        iters, out = [iter(p) for p in pipes], []
        live = list(range(len(iters)))
        while live:
            for i in list(live):
                try:
                    out.append([i, next(iters[i])])
                except StopIteration:
                    live.remove(i)
        return out

    def sharded(n, *groups):
        dp = r(n).sharding_filter()
        for num, idx, group in groups:
            graph_settings.apply_sharding(dp, num, idx, group)
        return [list(dp), len(dp)]

    def invalidated():
        dp = r(5)
        first = iter(dp)
        next(first)
        second = iter(dp)
        next(second)
        return next(first)

    def invalidated_child():
        a, b = r(5).fork(2)
        ia, ib = iter(a), iter(b)
        next(ia)
        next(ib)
        iter(a)
        next(iter(a))
        return next(ib)

    def deep_fork():
        a, b = IW([[1], [2]]).fork(2, copy="deep")
        out = []
        for x, y in zip(a, b):
            x.append(0)
            out.append([x, y])
        return out

    def files(fn):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in [("b.txt", "bee"), ("a.txt", "ay"), ("c.csv", "1,2"),
                              ("sub/d.txt", "dee")]:
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            return [os.path.relpath(p, root) if isinstance(p, str) else p for p in fn(root)]

    def read_files(root, **kw):
        pipe = it.FileLister(root, "*.txt", recursive=True).open_files(**kw).read_from_stream()
        return [(os.path.relpath(p, root), d) for p, d in pipe]

    def stepped(opt_cls, swap, **kw):
        """One live step, then a step on swapped-in copies (with lr doubled) when `swap`."""
        torch.manual_seed(0)
        w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64))
        b = torch.nn.Parameter(torch.tensor([0.5], dtype=torch.float64))
        opt = opt_cls([{"params": [w]}, {"params": [b], "lr": 0.05}], **kw)
        w.grad = torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64)
        b.grad = torch.tensor([1.0], dtype=torch.float64)
        opt.step()
        sd = opt.state_dict()
        params = {"w": w.detach().clone(), "b": b.detach().clone()}
        params["w"].grad = torch.tensor([1.0, 1.0, -1.0], dtype=torch.float64)
        params["b"].grad = torch.tensor([-0.5], dtype=torch.float64)
        state = {"state": {k: {n: (v.clone() if hasattr(v, "clone") else v) for n, v in s.items()}
                           for k, s in sd["state"].items()},
                 "param_groups": [dict(g, lr=g["lr"] * 2) for g in sd["param_groups"]]}
        if not swap:
            return sd["state"]
        with torch.optim.swap_in_optimizer_params_and_state(opt, params, state):
            inside = [g["lr"] for g in opt.param_groups]
            opt.step()
        return {"live": [w, b, [g["lr"] for g in opt.param_groups], opt.state[w]],
                "inside_lr": inside, "swapped": [params["w"], params["b"]],
                "swapped_state": state["state"]}

    def swap_error(edit):
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        w.grad = torch.tensor([1.0, 1.0])
        opt.step()
        sd = opt.state_dict()
        params = {"w": w.detach().clone()}
        edit(opt, params, sd)
        with torch.optim.swap_in_optimizer_params_and_state(opt, params, sd):
            pass
        return "ok"

    def set_item(d, k, v):
        d[k] = v

    def fresh_sgd_swap():
        w = torch.nn.Parameter(torch.tensor([1.0]))
        opt = torch.optim.SGD([w], lr=0.1)
        with torch.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, opt.state_dict()):
            pass

    def validated(value):
        @data.argument_validation
        def f(dp: data.IterDataPipe, n: int):
            return n
        return f(value, 3)

    def determinism(pick):
        @data.non_deterministic
        class Always(data.IterDataPipe):
            def __iter__(self):
                yield 1

        @data.non_deterministic(lambda n: n > 1)
        class Sometimes(data.IterDataPipe):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                yield self.n

        with data.guaranteed_datapipes_determinism():
            return list([Always, lambda: Sometimes(1), lambda: Sometimes(2)][pick]())

    def loader(dp, **kw):
        return list(data.DataLoader(dp, **kw))

    return {
        # sources
        "iterable_wrapper": lambda: [list(r(5)), len(r(5))],
        "iterable_wrapper_deepcopy": lambda: (lambda src: [list(IW(src)), src])([[1], [2]]),
        "len_unknown": lambda: len(IW(iter([1, 2])).map(_double)),
        "repr_str": lambda: [repr(r(2).map(_double)), str(SW([1]).batch(1)), repr(r(1).fork(2)[0])],
        "getattr_missing": lambda: r(2).not_a_pipe,
        # map
        "map": lambda: list(r(5).map(_double)),
        "map_class_form": lambda: list(it.Mapper(r(3), _double)),
        "map_input_col": lambda: list(IW([(1, 2), (3, 4)]).map(_double, input_col=1)),
        "map_input_cols": lambda: list(IW([(1, 2, 9), (3, 4, 9)]).map(_add, input_col=[0, 1])),
        "map_output_append": lambda: list(IW([[1, 2], [3, 4]]).map(_double, input_col=0,
                                                                  output_col=-1)),
        "map_dict_cols": lambda: list(IW([{"a": 1}, {"a": 5}]).map(_double, input_col="a",
                                                                  output_col="b")),
        "map_output_list": lambda: list(IW([(1, 2)]).map(_double, input_col=0, output_col=[1])),
        "map_output_without_input": lambda: r(2).map(_double, output_col=1),
        "map_output_two": lambda: r(2).map(_double, input_col=0, output_col=[0, 1]),
        "map_bad_arity": lambda: r(2).map(_add),
        "map_bad_arity_cols": lambda: r(2).map(_double, input_col=[0, 1]),
        "map_not_callable": lambda: r(2).map(3),
        "map_raises": lambda: list(r(5).map(_fail_on_3)),
        "map_len": lambda: len(r(7).map(_double)),
        # filter
        "filter": lambda: list(r(9).filter(_is_even)),
        "filter_input_col": lambda: list(IW([(1, 2), (3, 4)]).filter(_is_even, input_col=0)),
        "filter_not_bool": lambda: list(r(3).filter(_double)),
        # batch / unbatch
        "batch": lambda: [list(r(7).batch(3)), len(r(7).batch(3))],
        "batch_drop_last": lambda: [list(r(7).batch(3, drop_last=True)),
                                    len(r(7).batch(3, drop_last=True))],
        "batch_wrapper": lambda: list(r(4).batch(2, wrapper_class=list)),
        "batch_zero": lambda: r(3).batch(0),
        "unbatch": lambda: list(r(7).batch(3).unbatch()),
        "unbatch_2": lambda: list(r(8).batch(2).batch(2).unbatch(unbatch_level=2)),
        "unbatch_1_of_2": lambda: list(r(8).batch(2).batch(2).unbatch()),
        "unbatch_all": lambda: list(IW([[1, [2, [3]]], [[4]], 5]).unbatch(-1)),
        "unbatch_0": lambda: list(r(4).batch(2).unbatch(0)),
        "unbatch_too_deep": lambda: list(r(4).batch(2).unbatch(2)),
        "unbatch_bad_level": lambda: list(r(4).batch(2).unbatch(-2)),
        "datachunk": lambda: (lambda c: [c.as_str(), c.as_str("> "), list(c.raw_iterator()),
                                         c == [1, "a"], len(c)])(data.DataChunk([1, "a"])),
        # collate
        "collate_tuples": lambda: list(IW([(1, 2.0), (3, 4.0)]).batch(2).collate()),
        "collate_dicts": lambda: list(IW([{"x": 1}, {"x": 2}, {"x": 3}]).batch(2).collate()),
        "collate_fn": lambda: list(r(6).batch(3).collate(collate_fn=sum)),
        "collate_conversion": lambda: list(r(4).batch(2).collate(len)),
        # combining
        "concat": lambda: [list(r(2).concat(r(3), IW("ab"))), len(r(2).concat(r(3)))],
        "concat_empty": lambda: it.Concater(),
        "concat_not_pipe": lambda: r(2).concat([1]),
        "zip": lambda: [list(r(3).zip(IW("abcd"))), len(r(3).zip(IW("abcd")))],
        "zip_not_pipe": lambda: r(2).zip([1]),
        "mux": lambda: [list(r(3).mux(IW("abcde"), IW([10, 20, 30, 40]))),
                        len(r(3).mux(IW("abcde")))],
        "fork": lambda: [list(p) for p in r(4).fork(3)],
        "fork_interleaved": lambda: interleave(*r(4).fork(2)),
        "fork_one": lambda: (lambda dp: dp.fork(1) is dp)(r(2)),
        "fork_len": lambda: [len(p) for p in r(4).fork(2)],
        "fork_deep": deep_fork,
        "fork_zero": lambda: r(2).fork(0),
        "fork_bad_copy": lambda: r(2).fork(2, copy="wide"),
        "fork_overflow": lambda: list(r(10).fork(2, buffer_size=3)[0]),
        "fork_zip_children": lambda: list(it.Zipper(*r(4).fork(2))),
        "demux": lambda: [list(p) for p in r(7).demux(2, _parity)],
        "demux_three": lambda: interleave(*r(9).demux(3, _mod3)),
        "demux_drop_none": lambda: [list(p) for p in r(6).demux(2, _none_for_3, drop_none=True)],
        "demux_none": lambda: list(r(6).demux(2, _none_for_3)[0]),
        "demux_out_of_range": lambda: list(r(6).demux(2, _mod3)[0]),
        "demux_overflow": lambda: list(r(10).demux(2, _parity, buffer_size=2)[1]),
        "demux_len": lambda: len(r(4).demux(2, _parity)[0]),
        "invalidated": invalidated,
        "invalidated_child": invalidated_child,
        # grouping
        "groupby": lambda: list(IW(["apple", "avocado", "banana", "blueberry", "cherry", "apricot"])
                                .groupby(_first_letter)),
        "groupby_keep_key": lambda: list(r(10).groupby(_mod3, keep_key=True)),
        "groupby_group_size": lambda: list(r(10).groupby(_mod3, group_size=2)),
        "groupby_buffer": lambda: list(r(12).groupby(_mod3, buffer_size=4)),
        "groupby_guaranteed": lambda: list(r(10).groupby(_mod3, buffer_size=3, group_size=3,
                                                         guaranteed_group_size=2,
                                                         drop_remaining=True)),
        "groupby_fail": lambda: list(r(10).groupby(_mod3, buffer_size=3, group_size=3)),
        "groupby_bad_size": lambda: r(3).groupby(_mod3, buffer_size=2, group_size=3),
        "groupby_bad_guarantee": lambda: r(3).groupby(_mod3, guaranteed_group_size=2),
        # sharding
        "sharding_none": lambda: sharded(7),
        "sharding_default": lambda: sharded(10, (3, 1, P.DEFAULT)),
        "sharding_groups": lambda: sharded(24, (2, 1, P.DISTRIBUTED), (3, 2, P.MULTIPROCESSING)),
        "sharding_mix": lambda: sharded(6, (2, 1, P.DISTRIBUTED), (2, 0, P.DEFAULT)),
        "sharding_bad_id": lambda: sharded(6, (2, 2, P.DEFAULT)),
        "sharding_twice": lambda: graph_settings.apply_sharding(
            r(4).sharding_filter().map(_double).sharding_filter(), 2, 0),
        "sharding_filter_group": lambda: (lambda dp: [graph_settings.apply_sharding(
            dp, 2, 1, P.DISTRIBUTED), graph_settings.apply_sharding(dp, 3, 1, P.MULTIPROCESSING),
            list(dp)][2])(it.ShardingFilter(r(12), sharding_group_filter=P.MULTIPROCESSING)),
        # shuffle (seeded through set_seed: Python's generator, the same in both)
        "shuffle_seeded": lambda: list(r(10).shuffle().set_seed(0)),
        "shuffle_small_buffer": lambda: list(r(12).shuffle(buffer_size=3).set_seed(7)),
        "shuffle_unbatch": lambda: list(r(6).batch(2).shuffle(unbatch_level=1).set_seed(1)),
        "shuffle_off": lambda: list(r(5).shuffle().set_shuffle(False)),
        "shuffle_len": lambda: len(r(5).shuffle()),
        "shuffle_bad_buffer": lambda: r(5).shuffle(buffer_size=0),
        "shuffle_settings": lambda: list(graph_settings.apply_shuffle_settings(
            r(5).shuffle().map(_double), shuffle=False)),
        "sampler": lambda: [list(it.Sampler(IW("abc"))), len(it.Sampler(IW("abc")))],
        # map-style
        "seq_wrapper": lambda: [[SW("abc")[i] for i in range(3)], len(SW("abc")),
                                SW({"k": 1})["k"]],
        "seq_map": lambda: list(SW(range(4)).map(_double)),
        "seq_map_default": lambda: SW([7, 8]).map()[1],
        "seq_batch": lambda: [list(SW(range(5)).batch(2)), len(SW(range(5)).batch(2))],
        "seq_batch_drop": lambda: [list(SW(range(5)).batch(2, drop_last=True)),
                                   len(SW(range(5)).batch(2, drop_last=True))],
        "seq_batch_oob": lambda: SW(range(5)).batch(2, drop_last=True)[2],
        "seq_concat": lambda: [list(SW([1, 2]).concat(SW("ab"))), len(SW([1]).concat(SW("ab")))],
        "seq_concat_oob": lambda: SW([1, 2]).concat(SW("ab"))[4],
        "seq_concat_bad": lambda: SW([1]).concat(r(2)),
        "seq_concat_empty": lambda: mp.Concater(),
        "seq_zip": lambda: [list(SW([1, 2, 3]).zip(SW("ab"))), len(SW([1, 2, 3]).zip(SW("ab")))],
        "seq_zip_oob": lambda: SW([1, 2, 3]).zip(SW("ab"))[2],
        "seq_shuffle_seeded": lambda: list(SW(range(8)).shuffle().set_seed(3)),
        "seq_shuffle_indices": lambda: list(SW("abcdef").shuffle(indices=[0, 2, 4]).set_seed(1)),
        "seq_shuffle_off": lambda: list(SW("abc").shuffle().set_shuffle(False)),
        "seq_shuffle_kind": lambda: [isinstance(SW("ab").shuffle(), data.IterDataPipe),
                                     len(SW("ab").shuffle())],
        # files
        "file_lister": lambda: files(lambda root: list(it.FileLister(root))),
        "file_lister_masks": lambda: files(lambda root: list(it.FileLister(root, ["*.txt"],
                                                                           recursive=True))),
        "file_lister_file": lambda: files(lambda root: list(it.FileLister(
            os.path.join(root, "a.txt")))),
        "file_lister_len": lambda: len(it.FileLister(".", length=3)),
        "file_lister_no_len": lambda: len(it.FileLister(".")),
        "read_text": lambda: files(lambda root: read_files(root)),
        "read_binary": lambda: files(lambda root: read_files(root, mode="b")),
        "open_bad_mode": lambda: it.FileOpener(IW([]), mode="w"),
        "open_binary_encoding": lambda: it.FileOpener(IW([]), mode="rb", encoding="utf-8"),
        "read_chunks": lambda: files(lambda root: [(os.path.relpath(p, root), d) for p, d in
                                                   it.StreamReader(it.FileOpener(
                                                       IW([os.path.join(root, "b.txt")])),
                                                       chunk=2)]),
        # DataLoader
        "loader_batched": lambda: loader(r(7), batch_size=3),
        "loader_unbatched": lambda: loader(r(4).map(_double), batch_size=None),
        "loader_pipe_batches": lambda: loader(r(5).batch(2), batch_size=None),
        "loader_shuffle_false": lambda: loader(r(6).shuffle(), batch_size=None, shuffle=False),
        "loader_shuffle_true_no_shuffler": lambda: loader(r(6), batch_size=None, shuffle=True),
        "loader_sharded": lambda: loader(r(6).sharding_filter(), batch_size=2),
        "loader_len": lambda: len(data.DataLoader(r(7), batch_size=3)),
        "loader_map_pipe": lambda: loader(SW(range(5)).map(_double), batch_size=2),
        "loader_sampler_rejected": lambda: data.DataLoader(r(3), sampler=[0, 1]),
        # decorators
        "argument_validation_ok": lambda: validated(r(2)),
        "argument_validation_bad": lambda: validated([1, 2]),
        "runtime_validation_wrong_fn": lambda: data.runtime_validation(_double),
        "non_deterministic_class": lambda: determinism(0),
        "non_deterministic_fn_false": lambda: determinism(1),
        "non_deterministic_fn_true": lambda: determinism(2),
        "non_deterministic_bad": lambda: data.non_deterministic(3),
        "non_deterministic_not_pipe": lambda: data.non_deterministic(int),
        "functional_taken": lambda: data.IterDataPipe.register_datapipe_as_function("map", IW),
        "functional_names": lambda: sorted(n for n in data.IterDataPipe.functions
                                           if not n.startswith("_") and n not in (
                                               "routed_decode", "trace_as_dataframe")),
        "functional_map_names": lambda: sorted(n for n in data.MapDataPipe.functions
                                               if not n.startswith("_")),
        "is_dataset": lambda: [isinstance(r(1), data.IterableDataset),
                               isinstance(SW([1]), data.Dataset),
                               isinstance(SW([1]), data.IterableDataset),
                               issubclass(data.DFIterDataPipe, data.IterDataPipe)],
        # optim.swap_in_optimizer_params_and_state
        "swap_adam": lambda: stepped(torch.optim.Adam, True, lr=0.1),
        "swap_sgd_momentum": lambda: stepped(torch.optim.SGD, True, lr=0.1, momentum=0.9),
        "swap_adam_state_dict": lambda: stepped(torch.optim.Adam, False, lr=0.1),
        "swap_uninitialized": fresh_sgd_swap,
        "swap_not_dict": lambda: swap_error(lambda o, p, sd: sd.clear() or sd.update(
            state=None, param_groups=[])),
        "swap_state_tensor_key": lambda: swap_error(lambda o, p, sd: set_item(
            sd, "state", {p["w"]: {}})),
        "swap_state_not_dicts": lambda: swap_error(lambda o, p, sd: set_item(sd, "state", {0: 1})),
        "swap_groups_not_list": lambda: swap_error(lambda o, p, sd: set_item(
            sd, "param_groups", tuple(sd["param_groups"]))),
        "swap_group_count": lambda: swap_error(lambda o, p, sd: set_item(
            sd, "param_groups", sd["param_groups"] * 2)),
        "swap_group_params": lambda: swap_error(lambda o, p, sd: set_item(
            sd["param_groups"][0], "params", [0, 1])),
        "swap_group_keys": lambda: swap_error(lambda o, p, sd: set_item(
            sd["param_groups"][0], "extra", 1)),
        "swap_extra_state": lambda: swap_error(lambda o, p, sd: set_item(sd["state"], 5, {})),
        "swap_too_few_params": lambda: swap_error(lambda o, p, sd: p.clear()),
    }
