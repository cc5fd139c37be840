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


def _value(v):
    # Strings of a tensor summary may be serialized protos (custom scalars): kept as hex then.
    if isinstance(v, bytes):
        try:
            return v.decode()
        except UnicodeDecodeError:
            return v.hex()
    return v


def _tensor(proto):
    from tensorboard.util import tensor_util
    array = tensor_util.make_ndarray(proto)
    flat = [_value(v) for v in array.reshape(-1).tolist()]
    return {"dtype": proto.dtype, "shape": list(array.shape), "values": flat}


def _audio(event):
    import wave
    with wave.open(io.BytesIO(event.encoded_audio_string)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").tolist()
        return [event.step, event.content_type, event.sample_rate, event.length_frames, w.getnchannels(), frames]


def read_files(root):
    """The files other than event files under `root` (add_embedding's): text as text, PNGs as pixels."""
    from PIL import Image
    out = {}
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.startswith("events.out"):
                continue
            path = os.path.join(d, f)
            key = os.path.relpath(path, root)
            if f.endswith(".png"):
                out[key] = np.asarray(Image.open(path)).tolist()
            else:
                with open(path) as fh:
                    out[key] = fh.read()
    return out


def read_runs(root):
    from PIL import Image
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    runs = {}
    for d, _, files in sorted(os.walk(root)):
        if not any(f.startswith("events.out.tfevents.") for f in files):
            continue
        acc = EventAccumulator(d, size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0, "audio": 0})
        acc.Reload()
        tags = acc.Tags()
        run = {"scalars": {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]},
               "histograms": {t: [[e.step, _histogram(e.histogram_value)] for e in acc.Histograms(t)] for t in tags["histograms"]},
               "images": {t: [[e.step, e.width, e.height, np.asarray(Image.open(io.BytesIO(e.encoded_image_string))).tolist()]
                              for e in acc.Images(t)] for t in tags["images"]},
               "tensors": {t: [[e.step, e.tensor_proto.dtype, [s.decode() for s in e.tensor_proto.string_val],
                                list(e.tensor_proto.float_val), list(e.tensor_proto.double_val)] for e in acc.Tensors(t)]
                           for t in tags["tensors"]},
               "full_tensors": {t: [[e.step, _tensor(e.tensor_proto)] for e in acc.Tensors(t)] for t in tags["tensors"]},
               "audio": {t: [_audio(e) for e in acc.Audio(t)] for t in tags["audio"]},
               "plugins": {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in tags["tensors"]},
               "plugin_content": {t: _value(acc.SummaryMetadata(t).plugin_data.content) for t in tags["tensors"]},
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


def media_program(SummaryWriter, tensor, log_dir):
    """The summaries beyond scalars and histograms: image batches and boxes, audio, whole tensors,
    raw histograms, precision-recall curves, custom-scalar layouts, meshes and embeddings."""
    rng = np.random.default_rng(1)
    with SummaryWriter(log_dir=log_dir) as w:
        w.add_images("batch", tensor(rng.random((5, 3, 4, 6))), 0)
        w.add_images("batch_grey_nhwc", rng.integers(0, 256, (3, 4, 6, 1)).astype(np.uint8), 0, dataformats="NHWC")
        w.add_images("batch_of_ten", tensor(rng.random((10, 1, 2, 3))), 1)
        boxes = tensor(np.array([[2.0, 3.0, 20.0, 25.0], [10.0, 5.0, 40.0, 30.0]]))
        w.add_image_with_boxes("boxes", tensor(rng.random((3, 32, 48))), boxes, 0)
        w.add_image_with_boxes("boxes_big", tensor(rng.random((3, 16, 20))), boxes[:1] / 2, 0, rescale=2)
        w.add_audio("sound", tensor(np.sin(np.linspace(0, 20, 800)) * 0.9), 0, sample_rate=8000)
        w.add_tensor("t32", tensor(rng.random((2, 3)).astype(np.float32)), 0)
        w.add_tensor("t64", tensor(rng.random(2)), 1)
        w.add_tensor("ti", tensor(np.arange(6).reshape(2, 3)), 0)
        w.add_histogram_raw("raw", 0.0, 10.0, 5, 20.0, 100.0, [1.0, 5.0, 10.0], [1, 2, 2], 0)
        labels, predictions = rng.integers(0, 2, 100), rng.random(100)
        w.add_pr_curve("pr", tensor(labels), tensor(predictions), 0)
        w.add_pr_curve("pr_small", labels, predictions, 1, num_thresholds=10, weights=0.5)
        w.add_pr_curve_raw("pr_raw", [10, 5], [3, 1], [0, 2], [0, 5], [0.77, 0.83], [1.0, 0.5], 0, num_thresholds=2)
        w.add_custom_scalars_multilinechart(["loss/a", "loss/b"], category="cat", title="both")
        w.add_custom_scalars_marginchart(["m", "lo", "hi"])
        w.add_custom_scalars({"A": {"x": ["Multiline", ["p", "q"]], "y": ["Margin", ["v", "l", "u"]]}})
        w.add_mesh("mesh", tensor(rng.random((1, 4, 3))), colors=tensor(rng.integers(0, 255, (1, 4, 3))),
                   faces=tensor(np.array([[[0, 1, 2], [1, 2, 3]]])), config_dict={"camera": {"fov": 75}}, global_step=0)
        w.add_mesh("cloud", tensor(rng.random((1, 5, 3))), global_step=2)
        w.add_embedding(tensor(rng.random((4, 3)).astype(np.float32)), metadata=["a", "b", "c", "d"],
                        label_img=tensor(rng.random((4, 3, 2, 2))), global_step=3, tag="emb/x")
        w.add_embedding(rng.random((2, 2)), metadata=[[1, "p"], [2, "q"]], metadata_header=["id", "name"], tag="e2")
        w.flush()
    return {"runs": read_runs(log_dir), "files": read_files(log_dir)}


def purge_program(SummaryWriter, tensor, log_dir):
    with SummaryWriter(log_dir=log_dir) as w:
        for step in range(5):
            w.add_scalar("loss", float(step), step)
    with SummaryWriter(log_dir=log_dir, purge_step=2) as w:
        for step in range(2, 4):
            w.add_scalar("loss", 10.0 + step, step)
    return read_runs(log_dir)
