"""The demo suite: every benchmark, task type, level, domain and hop, with small real
video files written by PyAV, so everything runs on a fresh machine with no download.
`synthetic_suite` builds paper-size suites without video files for scale tests and
benchmarks.

Everything in a demo suite, its public texts included, is drawn from the suite's
secret (a fresh one unless one is given): with the code public, anything drawn from a
public seed could be drawn again, answer key and all. Given the same secret, a build
is deterministic (tests pass a fixed one).
"""

from __future__ import annotations

from pathlib import Path

import tempfile

from evaluator.benchmarks import BENCHMARKS
from evaluator.benchmarks.common import Secret
from evaluator.suite import Suite, build_suite

# Paper sizes, for synthetic suites: each benchmark's PAPER_SIZE (in its demo's `size` units).
PAPER_SIZES = {name: module.PAPER_SIZE for name, module in BENCHMARKS.items()}


# Not a secret: the fixed input of `demo_fingerprint`'s dry run.
_FINGERPRINT_SECRET = Secret(b"demo generator fingerprint, not a suite secret")


def build_demo_suite(out: Path, secret: Secret | None = None) -> Suite:
    secret = secret or Secret.new()
    datasets = [module.demo(secret) for module in BENCHMARKS.values()]
    return build_suite(Path(out), "demo", "v1", datasets, None, secret, write_videos=True,
                       generator=demo_fingerprint())


def demo_fingerprint() -> str:
    """What identifies the demo generator: the content hash of a dry build (no video
    files) from a fixed secret. Two demo suites share it exactly when the same code
    made them, so a site can tell whether its published demo is current without
    comparing content that differs from secret to secret."""
    with tempfile.TemporaryDirectory() as tmp:
        datasets = [module.demo(_FINGERPRINT_SECRET) for module in BENCHMARKS.values()]
        dry = build_suite(Path(tmp), "demo", "v1", datasets, None, _FINGERPRINT_SECRET,
                          write_videos=False)
    return dry.manifest["content_sha256"][:16]


def synthetic_suite(out: Path, secret: Secret | None = None, scale: float = 1.0) -> Suite:
    """A file-less suite at `scale` times the papers' sizes (video metadata only)."""
    secret = secret or Secret.new()
    datasets = [module.demo(secret, size=max(1, round(PAPER_SIZES[name] * scale)))
                for name, module in BENCHMARKS.items()]
    return build_suite(Path(out), "synthetic", f"x{scale:g}", datasets, None, secret,
                       write_videos=False)
