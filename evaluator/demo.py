"""The deterministic demo suite: every benchmark, task type, level, domain and hop,
with small real video files written by PyAV, so everything runs on a fresh machine
with no download. `synthetic_suite` builds paper-size suites without video files
for scale tests and benchmarks.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.benchmarks import BENCHMARKS
from evaluator.suite import Suite, build_suite
from space_config.settings import FrameBudgets

# Paper sizes (items), for synthetic suites: ExpVid 7,800; CausalStep 100 videos
# (1,852 questions); ExAct 3,521; Video-MMMU 900; Video SimpleQA 1,504.
PAPER_SIZES = {"expvid": 7800, "causalstep": 100, "exact": 3521, "videommmu": 300, "videosimpleqa": 1504}


def build_demo_suite(out: Path, seed: int = 0) -> Suite:
    datasets = [module.demo(seed) for module in BENCHMARKS.values()]
    return build_suite(Path(out), "demo", "v1", datasets, FrameBudgets(), write_videos=True, seed=seed)


def synthetic_suite(out: Path, seed: int = 0, scale: float = 1.0) -> Suite:
    """A file-less suite at `scale` times the papers' sizes (video metadata only)."""
    datasets = [module.demo(seed, size=max(1, round(PAPER_SIZES[name] * scale)))
                for name, module in BENCHMARKS.items()]
    return build_suite(Path(out), "synthetic", f"x{scale:g}", datasets, FrameBudgets(),
                       write_videos=False, seed=seed)
