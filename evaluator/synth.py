"""Deterministic synthetic videos for the demo suite and the tests (PyAV).

Every frame depends only on (seed, scene, frame index):
  - a per-scene background colour drawn from the seed (scene cuts for CausalStep),
  - a square that moves one step per frame (so consecutive frames differ),
  - a 16-bit strip along the bottom edge encoding the frame index, which
    `frame_index_from_image` reads back after a real lossy decode, so tests can
    check WHICH frame a sampler returned.
A "card" (white, black border, seed-dependent black blocks, no strip) stands in
for an image slide: Video-MMMU puts the quiz image in the last frame, and its
question-only input is a still video of that image.

Same arguments give byte-identical files with the same PyAV/FFmpeg build:
encoders run single-threaded (x264 with several threads is not guaranteed to
be bit-exact), x264's macroblock-tree rate control is off (see _encode) and
the mp4 muxer writes no creation time. Different FFmpeg or x264 versions may
produce different bytes (the file also records the library versions), so
compare decoded frames, not file hashes, across machines.
"""
from __future__ import annotations

import os
from fractions import Fraction

import numpy as np

STRIP_BITS = 16  # frame indices up to 65535: over two hours at 8 fps


def _strip_height(height: int) -> int:
    return max(4, height // 8)


def _scene_colour(seed: int, scene: int) -> np.ndarray:
    # Channels kept in 30..200 so no scene frame is mistaken for a white card.
    rng = np.random.default_rng([seed, scene])
    return rng.integers(30, 201, size=3, dtype=np.uint8)


def scene_frame(index: int, *, frame_count: int, seed: int = 0, scenes: int = 1,
                size: tuple[int, int] = (96, 64)) -> np.ndarray:
    """The RGB image (height, width, 3) of frame `index` of a scene video."""
    width, height = size
    strip_h = _strip_height(height)
    scene = index * scenes // frame_count
    bg = _scene_colour(seed, scene)
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = bg
    # Moving square, vertically centred above the strip with a margin, so the
    # top rows always show the plain scene colour.
    side = max(2, (height - strip_h) // 4)
    x = (index * 3) % max(1, width - side)
    y = (height - strip_h - side) // 2
    img[y:y + side, x:x + side] = 255 - bg
    # Index strip: STRIP_BITS cells across the full width, most significant bit
    # first, white = 1, black = 0. Proportional cells survive rescaling.
    edges = [round(j * width / STRIP_BITS) for j in range(STRIP_BITS + 1)]
    for j in range(STRIP_BITS):
        bit = (index >> (STRIP_BITS - 1 - j)) & 1
        img[height - strip_h:, edges[j]:edges[j + 1]] = 255 * bit
    return img


def card_image(seed: int = 0, size: tuple[int, int] = (96, 64)) -> np.ndarray:
    """A white card with a black border and a seed-dependent grid of black blocks."""
    width, height = size
    img = np.full((height, width, 3), 255, dtype=np.uint8)
    border = max(2, min(width, height) // 16)
    img[:border], img[-border:], img[:, :border], img[:, -border:] = 0, 0, 0, 0
    rng = np.random.default_rng([seed, 1_000_003])  # distinct from scene colours
    cols, rows = 4, 3
    on = rng.integers(0, 2, size=(rows, cols)).astype(bool)
    on[rng.integers(rows), rng.integers(cols)] = True  # never a blank card
    inner_w, inner_h = width - 2 * border, height - 2 * border
    for r in range(rows):
        for c in range(cols):
            if on[r, c]:
                # Each block fills the middle half of its grid cell: at most
                # ~20% of the card is blocks, so it stays mostly white.
                x0 = border + (4 * c + 1) * inner_w // (4 * cols)
                x1 = border + (4 * c + 3) * inner_w // (4 * cols)
                y0 = border + (4 * r + 1) * inner_h // (4 * rows)
                y1 = border + (4 * r + 3) * inner_h // (4 * rows)
                img[y0:y1, x0:x1] = 0
    return img


def frame_index_from_image(rgb: np.ndarray) -> int:
    """Read the frame index from a decoded RGB frame (any resolution).

    Samples the middle of each strip cell and thresholds its mean brightness,
    which tolerates compression noise and ringing at cell edges. Cards carry
    no strip: the value read from a card is meaningless (use `is_card`).
    """
    rgb = np.asarray(rgb)
    height, width = rgb.shape[:2]
    strip_h = height / 8  # matches _strip_height for sizes whose height >= 32
    yc = height - strip_h / 2
    ry = max(1, int(strip_h / 4))
    cell = width / STRIP_BITS
    rx = max(1, int(cell / 4))
    value = 0
    for j in range(STRIP_BITS):
        xc = (j + 0.5) * cell
        patch = rgb[int(yc) - ry:int(yc) + ry, int(xc) - rx:int(xc) + rx + 1]
        value = (value << 1) | int(patch.mean() > 127.5)
    return value


def is_card(rgb: np.ndarray) -> bool:
    """True for a card frame: mostly near-white pixels (scene frames are < 20% white)."""
    rgb = np.asarray(rgb)
    return bool((rgb.min(axis=2) > 200).mean() > 0.5)


def _encode(path, frames, *, fps: int, size: tuple[int, int], codec: str,
            gop: int | None) -> str:
    import av  # lazily: only the demo builder and tests write videos

    width, height = size
    if width % 2 or height % 2:
        raise ValueError(f"size must be even for yuv420p, got {size}")
    path = os.fspath(path)
    rate = Fraction(fps)
    with av.open(path, "w", format="mp4") as container:
        stream = container.add_stream(codec, rate=rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.codec_context.thread_count = 1  # multi-threaded encoders may not be bit-exact
        if gop is not None:
            stream.codec_context.gop_size = gop
        if codec == "libx264":
            # mbtree=0: with macroblock-tree rate control x264 gave different
            # bytes for identical input on these tiny frames (its lookahead
            # seems to read uninitialised memory); without it the output is
            # bit-exact and B-frames (real-world frame reordering) are kept.
            options = {"preset": "veryfast", "crf": "18", "threads": "1", "x264-params": "mbtree=0"}
            if gop is not None:
                # No extra keyframes at scene cuts: keyframes exactly every `gop`.
                options["x264-params"] += ":scenecut=0"
            stream.options = options
        for i, img in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            frame.pts, frame.time_base = i, 1 / rate
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():  # flush delayed (B-)frames
            container.mux(packet)
    return path


def _frame_total(seconds: float, fps: int) -> int:
    n = round(seconds * fps)
    if n < 1:
        raise ValueError(f"{seconds}s at {fps} fps has no frames")
    return n


def write_video(path, *, seconds: float, fps: int = 8, size: tuple[int, int] = (96, 64),
                seed: int = 0, scenes: int = 1, final_card: bool = False,
                codec: str = "libx264", gop: int | None = None) -> str:
    """Write round(seconds * fps) frames split into `scenes` equal scenes.

    final_card=True replaces the last frame by `card_image(seed)`. Returns path.
    """
    n = _frame_total(seconds, fps)
    if size[0] < 4 * STRIP_BITS or size[1] < 32:
        # Smaller strip cells blur into each other after compression.
        raise ValueError(f"size must be at least {4 * STRIP_BITS}x32 for the index strip, got {size}")
    if not 1 <= scenes <= n:
        raise ValueError(f"scenes must be between 1 and the frame count {n}, got {scenes}")
    card = card_image(seed, size) if final_card else None

    def frames():
        for i in range(n):
            if card is not None and i == n - 1:
                yield card
            else:
                yield scene_frame(i, frame_count=n, seed=seed, scenes=scenes, size=size)

    return _encode(path, frames(), fps=fps, size=size, codec=codec, gop=gop)


def write_image_video(path, *, seconds: float = 2, fps: int = 8, size: tuple[int, int] = (96, 64),
                      seed: int = 0, codec: str = "libx264") -> str:
    """A still video of `card_image(seed)`: the same card a final_card video ends on."""
    n = _frame_total(seconds, fps)
    card = card_image(seed, size)
    return _encode(path, (card for _ in range(n)), fps=fps, size=size, codec=codec, gop=None)


__all__ = ["write_video", "write_image_video", "frame_index_from_image", "is_card",
           "card_image", "scene_frame", "STRIP_BITS"]
