"""One SummaryWriter program, run by tests/record_tensorboard.py with PyTorch and by
tests/python/test_tensorboard.py with rstorch; `read_runs` gives what tensorboard's own
EventAccumulator reads back from every run directory, in plain Python values."""
import io
import os
import re

import numpy as np


def _histogram(h):
    return {"min": h.min, "max": h.max, "num": h.num, "sum": h.sum, "sum_squares": h.sum_squares,
            "bucket_limit": list(h.bucket_limit), "bucket": list(h.bucket)}


def _hparams(content):
    from google.protobuf.json_format import MessageToDict
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    data = MessageToDict(HParamsPluginData.FromString(content))
    for key in ("experiment", "sessionStartInfo", "sessionEndInfo"):
        for time_key in ("timeCreatedSecs", "startTimeSecs", "endTimeSecs"):
            data.get(key, {}).pop(time_key, None)
    return data


def _hparams_tags(acc):
    try:
        contents = acc.PluginTagToContent("hparams")
    except KeyError:  # the accumulator's way of saying that the run has no hparams summary
        return {}
    return {t: _hparams(c) for t, c in contents.items()}


def read_runs(root):
    from PIL import Image
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    runs = {}
    for d, _, files in sorted(os.walk(root)):
        if not any(f.startswith("events.out.tfevents.") for f in files):
            continue
        acc = EventAccumulator(d, size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
        acc.Reload()
        tags = acc.Tags()
        run = {"scalars": {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]},
               "histograms": {t: [[e.step, _histogram(e.histogram_value)] for e in acc.Histograms(t)] for t in tags["histograms"]},
               "images": {t: [[e.step, e.width, e.height, np.asarray(Image.open(io.BytesIO(e.encoded_image_string))).tolist()]
                              for e in acc.Images(t)] for t in tags["images"]},
               "tensors": {t: [[e.step, e.tensor_proto.dtype, [s.decode() for s in e.tensor_proto.string_val],
                                list(e.tensor_proto.float_val), list(e.tensor_proto.double_val)] for e in acc.Tensors(t)]
                           for t in tags["tensors"]},
               "plugins": {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in tags["tensors"]},
               "hparams": _hparams_tags(acc),
               # File names hold the time, host, process and a counter: only the suffix is compared.
               "files": sorted(f.endswith(".sfx") for f in files if f.startswith("events.out"))}
        # add_hparams names its run after the time: that part is replaced by a fixed name.
        name = os.path.relpath(d, root)
        runs[re.sub(r"\d{9,}\.\d+", "<time>", name)] = run
    return runs


def main_program(SummaryWriter, tensor, log_dir):
    rng = np.random.default_rng(0)
    vals = rng.normal(size=1000)
    with SummaryWriter(log_dir=log_dir, filename_suffix=".sfx") as w:
        for step in range(3):
            w.add_scalar("loss", tensor(1.0 / (step + 1)), step)
            w.add_scalar("acc", np.float32(0.5 + step * 0.1), step)
            w.add_scalar("lr", 0.1 * step, step, new_style=True)
            w.add_scalar("lr64", 0.1 * step, step, new_style=True, double_precision=True)
            w.add_scalars("run/x", {"a": step, "b": tensor(2.0 * step)}, step)
        w.add_histogram("w", tensor(vals), 0)
        w.add_histogram("w", vals * 2, 1)
        w.add_histogram("w_auto", vals, 0, bins="auto")
        w.add_histogram("w_fd", tensor(vals), 0, bins="fd")
        w.add_histogram("w_10", vals, 0, bins=10)
        w.add_histogram("w_max", vals, 0, max_bins=20)
        w.add_histogram("w_int", tensor(np.arange(50)), 0)
        w.add_text("note", "hello **world**", 0)
        w.add_text("note", "second", 1)
        w.add_image("img_chw", tensor(rng.random((3, 4, 5))), 0)
        w.add_image("img_gray", tensor(rng.random((1, 4, 5))), 0)
        w.add_image("img_hwc", rng.integers(0, 256, (4, 5, 3)).astype(np.uint8), 0, dataformats="HWC")
        w.add_image("img_rgba", rng.random((4, 5, 4)), 0, dataformats="HWC")
        w.add_image("img_hw", rng.random((4, 5)), 0, dataformats="HW")
        w.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "flag": True}, {"hp/acc": 0.9, "hp/loss": tensor(0.25)})
        w.flush()
    return read_runs(log_dir)


def purge_program(SummaryWriter, tensor, log_dir):
    with SummaryWriter(log_dir=log_dir) as w:
        for step in range(5):
            w.add_scalar("loss", float(step), step)
    with SummaryWriter(log_dir=log_dir, purge_step=2) as w:
        for step in range(2, 4):
            w.add_scalar("loss", 10.0 + step, step)
    return read_runs(log_dir)
