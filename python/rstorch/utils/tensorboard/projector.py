"""add_embedding's files for TensorBoard's projector: under `<log_dir>/<step, 5 digits>/<tag>`, the
points (tensors.tsv), their labels (metadata.tsv) and thumbnails (sprite.png), and in `log_dir`
the projector_config.pbtxt that lists every embedding the writer added."""
import io
import math
import os

import numpy as np

from .media import image_grid
from .summary import make_np

__all__ = ["write_embedding"]


def encode_tag(tag):
    # The tag names a folder: '%', '/' and '\\' are escaped as %xx, the other characters kept.
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def _write_metadata(folder, metadata, header):
    if header:
        if len(header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(cell) for cell in row) for row in [header] + list(metadata)]
    else:
        lines = [str(label) for label in metadata]
    with open(os.path.join(folder, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode())


def _write_sprite(folder, label_img):
    """The thumbnails (N, C, H, W) in [0, 1] on a square grid, ceil(sqrt(N)) to a side."""
    from PIL import Image

    images = make_np(label_img)
    grid = image_grid(images, ncols=math.ceil(images.shape[0] ** 0.5)).transpose(1, 2, 0)
    square = np.zeros((grid.shape[1], grid.shape[1], 3))
    square[:grid.shape[0]] = grid
    buffer = io.BytesIO()
    Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(buffer, format="PNG")
    with open(os.path.join(folder, "sprite.png"), "wb") as f:
        f.write(buffer.getvalue())


def write_embedding(config, log_dir, mat, metadata, label_img, global_step, tag, metadata_header):
    """Writes one embedding's files and appends its entry to `config` (a ProjectorConfig), then
    rewrites the config file."""
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    mat = make_np(mat)
    global_step = 0 if global_step is None else global_step
    subdir = f"{str(global_step).zfill(5)}/{encode_tag(tag)}"
    folder = os.path.join(log_dir, subdir)
    if os.path.exists(folder):
        if not os.path.isdir(folder):
            raise NotADirectoryError(f"Path: `{folder}` exists, but is a file. Cannot proceed.")
        print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
    else:
        os.makedirs(folder)
    if metadata is not None:
        if mat.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        _write_metadata(folder, metadata, metadata_header)
    if label_img is not None:
        if mat.shape[0] != label_img.shape[0]:
            raise AssertionError("#images should equal with #data points")
        _write_sprite(folder, label_img)
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    with open(os.path.join(folder, "tensors.tsv"), "wb") as f:
        for row in mat:
            f.write(("\t".join(str(v.item()) for v in row) + "\n").encode())
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(global_step).zfill(5)}", tensor_path=f"{subdir}/tensors.tsv")
    if metadata is not None:
        info.metadata_path = f"{subdir}/metadata.tsv"
    if label_img is not None:
        info.sprite.image_path = f"{subdir}/sprite.png"
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    config.embeddings.extend([info])
    with open(os.path.join(log_dir, "projector_config.pbtxt"), "wb") as f:
        f.write(text_format.MessageToString(config).encode())
