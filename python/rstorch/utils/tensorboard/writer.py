"""`SummaryWriter` and `FileWriter`: summaries become `Event` protos that tensorboard's
`EventFileWriter` appends to `events.out.tfevents.*` files under `log_dir`."""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import graph, media, plugins, projector, summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes `Summary` protos and events to one event file in `log_dir`."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = str(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            # Events carry int64 steps; a float step from a program is truncated as PyTorch does.
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        """`graph_profile`: (GraphDef, RunMetadata); the metadata goes in as run "step1"."""
        from tensorboard.compat.proto.event_pb2 import TaggedRunMetadata

        graph_def, step_stats = graph_profile
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)
        tagged = TaggedRunMetadata(tag="step1", run_metadata=step_stats.SerializeToString())
        self.add_event(Event(tagged_run_metadata=tagged), None, walltime)

    def add_onnx_graph(self, graph_def, walltime=None):
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()



def _default_log_dir(comment):
    # PyTorch's default: runs/<Mon><day>_<H>-<M>-<S>_<host><comment>.
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", stamp + "_" + socket.gethostname() + comment)


class SummaryWriter:
    """Logs scalars, histograms, text, images and hyperparameters for TensorBoard.

    `log_dir` defaults to `runs/<date>_<host><comment>`; `purge_step` makes TensorBoard discard the
    events at and after that step written by an earlier run in the same directory."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        self.log_dir = _default_log_dir(comment) if not log_dir else log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # A START session log at step s is TensorBoard's signal to drop older events >= s.
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False):
        self._get_file_writer().add_summary(summary.scalar(tag, scalar_value, new_style, double_precision),
                                            global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each key of `tag_scalar_dict` goes to its own run, `<log_dir>/<main_tag>_<key>` ('/' as
        '_'), under the tag `main_tag`, so that TensorBoard draws them on one chart."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = FileWriter(run_dir, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run_dir] = writer
            writer.add_summary(summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """`bins`: 'tensorflow' (TensorFlow's exponential buckets), a NumPy bin rule ('auto', 'fd',
        ...), a number of bins or their edges, as for `numpy.histogram`."""
        self._get_file_writer().add_summary(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(summary.text(tag, text_string), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """`img_tensor`: floats in [0, 1] or uint8 in [0, 255], laid out as `dataformats` says
        (CHW, HWC or HW; 1, 3 or 4 channels)."""
        self._get_file_writer().add_summary(media.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, drawn as one picture: a grid eight images wide."""
        self._get_file_writer().add_summary(media.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None, walltime=None, rescale=1,
                             dataformats="CHW", labels=None):
        """`box_tensor`: (N, 4) corners (xmin, ymin, xmax, ymax) in pixels; `labels`: a string or N
        strings (another count draws no labels, as PyTorch's)."""
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None
        self._get_file_writer().add_summary(
            media.image_boxes(tag, img_tensor, box_tensor, rescale, dataformats, labels), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, drawn side by side) as an image."""
        pixels = media.figure_to_image(figure, close)
        self.add_image(tag, pixels, global_step, walltime, dataformats="NCHW" if isinstance(figure, list) else "CHW")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """Clips (N, T, C, H, W) as a GIF; needs the `moviepy` package, as PyTorch's does."""
        self._get_file_writer().add_summary(media.video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._get_file_writer().add_summary(media.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        self._get_file_writer().add_summary(plugins.tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,  # noqa: A002
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts),
            global_step, walltime)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        self._get_file_writer().add_summary(plugins.pr_curve(tag, labels, predictions, num_thresholds, weights),
                                            global_step, walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds=127,
                         weights=None, walltime=None):
        self._get_file_writer().add_summary(
            plugins.pr_curve_raw(tag, true_positive_counts, false_positive_counts, true_negative_counts,
                                 false_negative_counts, precision, recall, num_thresholds, weights),
            global_step, walltime)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_custom_scalars(self, layout):
        """`layout`: {category: {chart title: ["Multiline", [tags]] or ["Margin", [value, lower, upper]]}}."""
        self._get_file_writer().add_summary(plugins.custom_scalars(layout))

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None, walltime=None):
        self._get_file_writer().add_summary(plugins.mesh(tag, vertices, colors, faces, config_dict),
                                            global_step, walltime)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Points (N, D) for TensorBoard's projector, with optional labels (N, or N rows of columns
        named by `metadata_header`) and thumbnails (N, C, H, W)."""
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        projector.write_embedding(self._projector_config, self._get_file_writer().get_logdir(), mat, metadata,
                                  label_img, global_step, tag, metadata_header)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The graph of `model` run on `input_to_model` (a tensor or a tuple/list of tensors): its
        ops with their module scopes, parameters, inputs and outputs (graph.py says how it is read).
        `use_strict_trace` is accepted for PyTorch's signature; the trace runs the model as is."""
        self._get_file_writer().add_graph(graph.model_graph(model, input_to_model, verbose))

    def add_onnx_graph(self, prototxt):
        """The graph of the ONNX model file `prototxt`; needs the `onnx` package, as PyTorch's does."""
        self._get_file_writer().add_onnx_graph(graph.onnx_graph_def(prototxt))

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Writes the hyperparameters and the metrics into a run of their own, `<log_dir>/<run_name>`
        (the current time by default), as PyTorch does."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=run_dir) as run_writer:
            for proto in (experiment, start, end):
                run_writer.file_writer.add_summary(proto, global_step)
            for key, value in metric_dict.items():
                run_writer.add_scalar(key, value, global_step)

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return  # already closed
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
