"""The picture and sound summaries of SummaryWriter: images (one, or a batch laid out as a grid),
images with boxes drawn on them, matplotlib figures, videos (GIFs through `moviepy`, as PyTorch's)
and audio (16-bit mono WAV). Pixels are encoded as PNG with Pillow, which tensorboard installs."""
import io
import wave

import numpy as np
from tensorboard.compat.proto.summary_pb2 import Summary

from .summary import make_np

__all__ = ["image", "image_boxes", "figure_to_image", "video", "audio"]


def image_grid(nchw, ncols=8):
    """A batch of images (N, C, H, W) side by side in rows of `ncols`, the last row padded with
    black. Grey images become RGB; the result is (3, H * rows, W * cols)."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, axis=1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    count, _, height, width = nchw.shape
    cols = min(count, ncols)
    rows = -(-count // cols)
    padded = np.concatenate([nchw, np.zeros((rows * cols - count,) + nchw.shape[1:], nchw.dtype)])
    # (rows, cols, C, H, W) -> (C, rows, H, cols, W): each row of images becomes a band of pixels.
    return padded.reshape(rows, cols, 3, height, width).transpose(2, 0, 3, 1, 4).reshape(3, rows * height, cols * width)


def to_hwc(array, dataformats):
    """`array` laid out as `dataformats` (NCHW-like batches, CHW/HWC, or HW) as one RGB(A) picture,
    height by width by channels."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shorthand twice.         input_format: {dataformats}")
    if array.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different.         "
                             f"tensor shape: {array.shape}, input_format: {dataformats}")
    dataformats = dataformats.upper()
    if len(dataformats) == 4:
        return image_grid(array.transpose([dataformats.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(dataformats) == 2:
        return np.stack([array.transpose([dataformats.find(c) for c in "HW"])] * 3, axis=2)
    hwc = array.transpose([dataformats.find(c) for c in "HWC"])
    # Grey images are written as RGB, as PyTorch does.
    return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc


def _as_pixels(hwc):
    # uint8 pictures are taken as 0..255 and anything else as 0..1 (scaled in float32, then truncated).
    scale = 1 if hwc.dtype == np.uint8 else 255
    return (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def _draw_box(picture, box, label):
    """A red rectangle from (x0, y0) to (x1, y1), with its label on a red band above its bottom edge."""
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(picture)
    x0, y0, x1, y1 = (float(v) for v in box)
    draw.line([(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)], width=2, fill="Red")
    if label:
        font = ImageFont.load_default()
        left, top, right, bottom = font.getbbox(label)
        text_height = bottom - top
        margin = np.ceil(0.05 * text_height)
        draw.rectangle([(x0, y1 - text_height - 2 * margin), (x0 + right - left, y1)], fill="Red")
        draw.text((x0 + margin, y1 - text_height - margin), label, fill="black", font=font)


def _encoded_image(pixels, rescale=1, boxes=None, labels=None):
    from PIL import Image  # a dependency of tensorboard

    height, width, channels = pixels.shape
    picture = Image.fromarray(pixels)
    if boxes is not None:
        for i, box in enumerate(boxes):
            _draw_box(picture, box, None if labels is None else labels[i])
    size = (int(width * rescale), int(height * rescale))
    if size != picture.size:
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    # The proto keeps the size before rescaling, as PyTorch's does.
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue())


def image(name, img, dataformats="CHW", rescale=1):
    proto = _encoded_image(_as_pixels(to_hwc(make_np(img), dataformats)), rescale)
    return Summary(value=[Summary.Value(tag=name, image=proto)])


def image_boxes(name, img, boxes, rescale=1, dataformats="CHW", labels=None):
    """`boxes`: (N, 4) corners (x0, y0, x1, y1) in pixels; `labels`: N strings or None."""
    proto = _encoded_image(_as_pixels(to_hwc(make_np(img), dataformats)), rescale, make_np(boxes), labels)
    return Summary(value=[Summary.Value(tag=name, image=proto)])


def figure_to_image(figures, close=True):
    """A matplotlib figure drawn as a (3, H, W) uint8 array, or a list of figures as (N, 3, H, W)."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def draw(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        width, height = figure.canvas.get_width_height()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(height, width, 4)
        if close:
            plt.close(figure)
        return np.ascontiguousarray(rgba[:, :, :3].transpose(2, 0, 1))

    if isinstance(figures, list):
        return np.stack([draw(f) for f in figures])
    return draw(figures)


def _video_frames(video):
    """(N, T, C, H, W) clips as T frames (T, H', W', C): the N clips tiled on a grid of a power of
    two cells, rows = 2 ** floor(log2(N) / 2), the missing cells black."""
    count, frames, channels, height, width = video.shape
    if video.dtype == np.uint8:
        video = np.float32(video) / 255.0
    cells = 1 << (count - 1).bit_length() if count & (count - 1) else count
    if cells != count:
        video = np.concatenate([video, np.zeros((cells - count,) + video.shape[1:])], axis=0)
    rows = 2 ** ((count.bit_length() - 1) // 2)
    cols = cells // rows
    grid = video.reshape(rows, cols, frames, channels, height, width).transpose(2, 0, 4, 1, 5, 3)
    return grid.reshape(frames, rows * height, cols * width, channels)


def video(name, vid, fps=4):
    """Clips (N, T, C, H, W) as an animated GIF. Without `moviepy` PyTorch prints why and writes the
    tag with no picture; so does this."""
    frames = _as_pixels(_video_frames(make_np(vid)))
    try:
        import moviepy  # noqa: F401
    except ImportError:
        print("add_video needs package moviepy")
        return Summary(value=[Summary.Value(tag=name)])
    try:
        from moviepy import editor
    except ImportError:
        print("moviepy is installed, but can't import moviepy.editor.", "Some packages could be missing [imageio, requests]")
        return Summary(value=[Summary.Value(tag=name)])
    import tempfile

    _, height, width, channels = frames.shape
    clip = editor.ImageSequenceClip(list(frames), fps=fps)
    with tempfile.NamedTemporaryFile(suffix=".gif") as f:
        try:
            clip.write_gif(f.name, verbose=False, logger=None)
        except TypeError:  # moviepy before its logger argument
            clip.write_gif(f.name, verbose=False)
        f.seek(0)
        encoded = f.read()
    proto = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encoded)
    return Summary(value=[Summary.Value(tag=name, image=proto)])


def audio(name, sound, sample_rate=44100):
    """One channel of samples in [-1, 1] (clipped, with PyTorch's warning, if louder) as a WAV."""
    samples = make_np(sound).squeeze()
    if abs(samples).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        samples = samples.clip(-1, 1)
    if samples.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm.tobytes())
    proto = Summary.Audio(sample_rate=sample_rate, num_channels=1, length_frames=pcm.shape[-1],
                          encoded_audio_string=buffer.getvalue(), content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=name, audio=proto)])
