"""Suites on disk: a public folder and an answer-key folder, written apart.

    <out>/suite/                 public: the suite store
        suite.json               manifest: id (name, version, content hash), counts, frame budgets
        calls.jsonl              the call list a submitter answers
        videos.jsonl             video metadata (duration, fps, frame count, file)
        videos/<id>.mp4
        <benchmark>/questions.jsonl
    <out>/answers/               private: the answers store, read only by workers
        answers.json             which suite it belongs to, and the suite's secret
        hidden_calls.jsonl       calls that would reveal answers (Video SimpleQA sub-questions)
        <benchmark>/answers.jsonl

The suite id ends with a hash of the public content, so results from different
question sets never share an id.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from evaluator import CODE_VERSION, benchmarks
from evaluator.benchmarks.common import Secret
from evaluator.errors import SuiteError
from evaluator.hashing import file_sha256
from evaluator.records import SCHEMA_VERSION, BenchmarkData, Call, VideoMeta, from_dict, to_dict

SUITE_DIR = "suite"
ANSWERS_DIR = "answers"
DEMO_FPS = 8
DEMO_SIZE = (96, 64)


@dataclass
class Suite:
    path: Path
    manifest: dict[str, Any]
    questions: dict[str, list[Any]]
    calls: list[Call]
    videos: dict[str, VideoMeta]

    @property
    def id(self) -> str:
        return self.manifest["id"]

    def calls_by_id(self) -> dict[str, Call]:
        return {c.id: c for c in self.calls}


@dataclass
class AnswerKey:
    path: Path
    suite_id: str
    answers: dict[str, list[Any]]
    hidden_calls: list[Call] = field(default_factory=list)


# -- writing ----------------------------------------------------------------

def _write_jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r if isinstance(r, dict) else to_dict(r), ensure_ascii=False))
            f.write("\n")


def content_hash(folder: Path, skip: tuple[str, ...] = ("suite.json", "answers.json")) -> str:
    """sha256 over (relative path, file sha256) of every file, in sorted order."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name not in skip:
            h.update(f"{p.relative_to(folder).as_posix()}\0{file_sha256(p)}\n".encode())
    return h.hexdigest()


def _materialise_videos(data: BenchmarkData, video_dir: Path, write_files: bool) -> dict[str, VideoMeta]:
    """Write (demo) or copy (import) each video, then probe it for exact metadata."""
    from evaluator import synth, video

    metas = {}
    # Sorted: in release order, videos.jsonl would tell each opaque id's release position.
    ids = sorted(set(data.video_specs) | set(data.video_files))
    for vid in ids:
        rel = f"videos/{vid}.mp4"
        target = video_dir / f"{vid}.mp4"
        spec = data.video_specs.get(vid)
        if not write_files:
            # File-less synthetic suites (scale tests, benchmarks): metadata only.
            metas[vid] = VideoMeta(vid, spec.seconds, DEMO_FPS, max(1, round(spec.seconds * DEMO_FPS)))
            continue
        seed = int(hashlib.sha256(vid.encode()).hexdigest()[:8], 16)
        if spec is not None and spec.seed is not None:
            seed = spec.seed
        if spec is None:
            video.copy_video_only(data.video_files[vid], target)  # no audio, no metadata
        elif spec.still:
            synth.write_image_video(target, seconds=spec.seconds, fps=DEMO_FPS, size=DEMO_SIZE, seed=seed)
        else:
            synth.write_video(target, seconds=spec.seconds, fps=DEMO_FPS, size=DEMO_SIZE, seed=seed,
                              scenes=spec.scenes, final_card=spec.final_card)
        info = video.probe(target)
        metas[vid] = VideoMeta(vid, round(info.duration, 3), info.fps, info.frame_count, rel)
    return metas


def build_suite(out: Path, name: str, version: str, datasets: list[BenchmarkData], budgets: dict[str, int] | None,
                secret: Secret, write_videos: bool = True, generator: str | None = None) -> Suite:
    """Write a suite's public folder and answer key under `out`; returns the loaded suite.
    `budgets`: frames per call by frame-budget key (None: each benchmark's protocol
    reference, evaluator.reference.default_budgets). `secret` (what the datasets'
    arrangements were drawn from) goes into the answer key only; `generator`
    fingerprints the demo generator that made the suite, if one did."""
    from evaluator.reference import default_budgets

    budgets = default_budgets() if budgets is None else dict(budgets)
    out = Path(out)
    public, private = out / SUITE_DIR, out / ANSWERS_DIR
    for folder in (public, private):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    (public / "videos").mkdir()

    all_calls: list[Call] = []
    hidden: list[Call] = []
    videos: dict[str, VideoMeta] = {}
    counts = {}
    for data in datasets:
        module = benchmarks.get(data.benchmark)
        metas = _materialise_videos(data, public / "videos", write_videos)
        videos.update(metas)
        calls = module.build_calls(data.questions, metas, budgets)
        worker_only = module.hidden_calls(data.questions, data.answers, metas, budgets) \
            if hasattr(module, "hidden_calls") else []
        all_calls += calls
        hidden += worker_only
        _write_jsonl(public / data.benchmark / "questions.jsonl", data.questions)
        _write_jsonl(private / data.benchmark / "answers.jsonl", data.answers)
        counts[data.benchmark] = {"items": len(data.questions), "calls": len(calls),
                                  "worker_calls": len(worker_only), "videos": len(metas)}

    _write_jsonl(public / "calls.jsonl", all_calls)
    _write_jsonl(public / "videos.jsonl", videos.values())
    _write_jsonl(private / "hidden_calls.jsonl", hidden)
    digest = content_hash(public)
    suite_id = f"{name}-{version}-{digest[:12]}"
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "id": suite_id,
        "name": name,
        "version": version,
        "content_sha256": digest,
        "benchmarks": counts,
        "frame_budgets": budgets,
        "videos_included": write_videos,
        "code_version": CODE_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if generator:
        manifest["generator"] = generator
    (public / "suite.json").write_text(json.dumps(manifest, indent=2))
    (private / "answers.json").write_text(json.dumps(
        {"schema_version": SCHEMA_VERSION, "suite_id": suite_id,
         "answers_sha256": content_hash(private), "secret": secret.hex()}, indent=2))
    return load_suite(public)


# -- reading ----------------------------------------------------------------

def record(cls: type, data: dict) -> Any:
    """A typed record from JSON; records with nested records define `from_json`."""
    return cls.from_json(data) if hasattr(cls, "from_json") else from_dict(cls, data)


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise SuiteError(f"{path}: missing; is this a suite folder written by `python -m evaluator`?")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _manifest(path: Path, name: str, hint: str) -> dict:
    file = path / name
    if not file.is_file():
        raise SuiteError(f"{path}: no {name} here; {hint}")
    return json.loads(file.read_text())


def load_suite(path: Path) -> Suite:
    path = Path(path)
    if (path / SUITE_DIR / "suite.json").is_file():
        path = path / SUITE_DIR  # accept the folder that holds suite/ and answers/
    manifest = _manifest(path, "suite.json", "pass the suite's public folder (the one with calls.jsonl)")
    questions = {}
    for name in manifest["benchmarks"]:
        module = benchmarks.get(name)
        questions[name] = [record(module.Question, r) for r in _read_jsonl(path / name / "questions.jsonl")]
    calls = [Call.from_json(r) for r in _read_jsonl(path / "calls.jsonl")]
    videos = {r["id"]: from_dict(VideoMeta, r) for r in _read_jsonl(path / "videos.jsonl")}
    return Suite(path, manifest, questions, calls, videos)


def read_secret(path: Path) -> Secret:
    """The secret of a built suite, from its answer-key folder (to rebuild it with the same
    arrangements, e.g. after correcting a question)."""
    path = Path(path)
    if (path / ANSWERS_DIR / "answers.json").is_file():
        path = path / ANSWERS_DIR
    manifest = _manifest(path, "answers.json", "pass the answer-key folder of the suite")
    if "secret" not in manifest:
        raise SuiteError(f"{path / 'answers.json'}: no secret recorded (a suite built before suites had one)")
    return Secret.from_hex(manifest["secret"])


def load_answers(path: Path, suite: Suite) -> AnswerKey:
    path = Path(path)
    if (path / ANSWERS_DIR / "answers.json").is_file():
        path = path / ANSWERS_DIR
    manifest = _manifest(path, "answers.json", "pass the answer-key folder of the suite")
    if manifest["suite_id"] != suite.id:
        raise SuiteError(f"{path}: this answer key belongs to suite {manifest['suite_id']}, "
                         f"not {suite.id}")
    answers = {}
    for name in suite.manifest["benchmarks"]:
        module = benchmarks.get(name)
        answers[name] = [record(module.Answer, r) for r in _read_jsonl(path / name / "answers.jsonl")]
    hidden = [Call.from_json(r) for r in _read_jsonl(path / "hidden_calls.jsonl")]
    return AnswerKey(path, suite.id, answers, hidden)


def with_video_files(call: dict, files: Mapping[str, str]) -> dict:
    """A call record (as in calls.jsonl) with each frame plan's video file, a path inside the
    suite's public folder: what a submitter needs to find the frames (`template`, the site's
    call-list download)."""
    for plan in call["frames"]:
        plan["file"] = files[plan["video"]]
    return call
