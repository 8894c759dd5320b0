"""`python -m evaluator import` end to end on a release in the official layout, with
real video files that carry audio and a revealing title: the suite's copies keep
the video only, and the answer key lands apart from the public part."""

from __future__ import annotations

import json

import av
import numpy as np

from conftest import run_cli
from evaluator.benchmarks import BENCHMARKS, ORDER
from evaluator import video


def write_av_file(path, title="The answer is Pyongyang"):
    """A short mp4 with an audio track and a title tag (what a release may hold)."""
    with av.open(str(path), "w") as out:
        out.metadata["title"] = title
        v = out.add_stream("libx264", rate=8)
        v.width, v.height, v.pix_fmt = 64, 48, "yuv420p"
        a = out.add_stream("aac", rate=16000)
        for i in range(16):
            img = np.full((48, 64, 3), (i * 15) % 255, dtype=np.uint8)
            for packet in v.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for i in range(16):
            samples = np.zeros((1, 1024), dtype=np.float32)
            frame = av.AudioFrame.from_ndarray(samples, format="fltp", layout="mono")
            frame.sample_rate = 16000
            frame.pts = i * 1024
            for packet in a.encode(frame):
                out.mux(packet)
        for stream in (v, a):
            for packet in stream.encode(None):
                out.mux(packet)


def test_copy_video_only_drops_audio_and_metadata(tmp_path):
    src, dst = tmp_path / "src.mp4", tmp_path / "dst.mp4"
    write_av_file(src)
    with av.open(str(src)) as f:
        assert f.streams.audio and f.metadata.get("title")
    video.copy_video_only(src, dst)
    with av.open(str(dst)) as f:
        assert not f.streams.audio
        assert "title" not in f.metadata
        assert len(f.streams.video) == 1
    assert video.probe(dst).frame_count == video.probe(src).frame_count == 16


def test_import_exact_release(tmp_path):
    data = tmp_path / "ExAct" / "data"
    data.mkdir(parents=True)
    with open(data / "metadata.jsonl", "w") as f:
        for i, activity in enumerate(["basketball", "piano", "dance"]):
            name = f"{activity}_tips_take{i}_3.0.mp4"
            write_av_file(data / name)
            f.write(json.dumps({"file_name": name, "id": name[:-4], "domain": activity, "is_ge": i == 1,
                                "groundTruth": f"Keep the elbow tucked {i}", "take_name": f"take{i}",
                                "negative_comments": [f"distractor {i}.{k}" for k in range(4)],
                                "video_time": 3.0, "task_name": activity}) + "\n")
    out = tmp_path / "suite"
    proc = run_cli("import", "--exact", str(tmp_path / "ExAct"), "--out", str(out), "--name", "official",
                   "--version", "v1")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "suite" / "suite.json").read_text())
    assert manifest["id"].startswith("official-v1-") and manifest["benchmarks"]["exact"]["items"] == 3
    videos = sorted((out / "suite" / "videos").glob("*.mp4"))
    assert len(videos) == 3 and not any("take" in p.name for p in videos)
    for path in videos:
        with av.open(str(path)) as f:
            assert not f.streams.audio and "title" not in f.metadata
    assert (out / "answers" / "exact" / "answers.jsonl").is_file()
    assert "answers" not in {p.name for p in (out / "suite").iterdir()}
    questions = [json.loads(line) for line in (out / "suite" / "exact" / "questions.jsonl").open()]
    assert all("label" not in q and "groundTruth" not in q for q in questions)

    proc = run_cli("import", "--exact", str(tmp_path / "missing"), "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "file not found" in proc.stderr and "Traceback" not in proc.stderr


def test_import_help_shows_each_release_layout():
    proc = run_cli("import", "--help")
    assert proc.returncode == 0, proc.stderr
    for name in ORDER:
        assert f"--{name} DIR: {BENCHMARKS[name].TITLE}" in proc.stdout
        assert BENCHMARKS[name].RELEASE_LAYOUT.splitlines()[0] in proc.stdout
    assert "annotations/level1/<task>.jsonl" in proc.stdout and "VideoSimpleQA.json" in proc.stdout


def test_import_check_names_every_missing_video_and_where_it_looked(tmp_path):
    from test_exact import record, write_release as write_exact

    root = write_exact(tmp_path / "ExAct", [record(0), record(1), record(2)])
    data = root / "data"  # the release keeps metadata.jsonl and the videos under data/
    names = [json.loads(line)["file_name"] for line in (data / "metadata.jsonl").open()]
    for name in names[:2]:
        (data / name).unlink()  # two of the three videos are missing
    proc = run_cli("import", "--check", "--exact", str(root))
    assert proc.returncode == 2, proc.stdout
    out = proc.stdout + proc.stderr
    assert "2 video file(s) not found" in out
    for name in names[:2]:
        assert f"'{name}' (looked in {data}, {data / 'videos'}, {data / 'data'})" in out
    assert names[2] not in out
    assert "Traceback" not in out


def test_import_check_reports_each_release_and_writes_nothing(tmp_path):
    from test_exact import record, write_release as write_exact
    from test_expvid import real_shaped_release
    from test_videommmu import github_rows, write_github_release

    exact_root = write_exact(tmp_path / "ExAct", [record(0, "rock_climbing"), record(1, "piano", True),
                                                  record(2, "Rock Climbing")])
    vm_root = write_github_release(tmp_path / "VideoMMMU", github_rows())
    expvid_root = real_shaped_release(tmp_path / "ExpVid", "subject")
    before = sorted(p for p in tmp_path.rglob("*"))
    proc = run_cli("import", "--check", "--exact", str(exact_root), "--videommmu", str(vm_root),
                   "--expvid", str(expvid_root))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "exact: " in out and "items: 3" in out
    assert "activity (2): bouldering 2, piano 1" in out and "domain (2): Music 1, Sports 2" in out
    assert "category (2): good_execution 1, tips 2" in out
    assert "'rock_climbing' read as bouldering: 1 item(s)" in out
    assert "track (3): adaptation 3, comprehension 3, perception 3" in out
    assert "question_type (2): multiple-choice 8, open 1" in out
    assert "options per question: 0 1, 2 1, 3 1, 4 1, 5 2, 10 2, 14 1" in out
    assert "restored LaTeX backslashes" in out and "question_type null at" in out
    assert "level (3): 1 12, 2 12, 3 6" in out and "discipline (2): Chemistry 20, Neuroscience 10" in out
    assert "discipline read from field 'subject': 30 item(s)" in out
    assert "nothing written (--check)" in out
    assert sorted(p for p in tmp_path.rglob("*")) == before  # nothing written

    bad = write_exact(tmp_path / "Bad", [record(0, "chess"), record(1, "juggling")])
    proc = run_cli("import", "--check", "--exact", str(bad), "--expvid", str(expvid_root))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "NOT READABLE" in proc.stdout and "'chess': 1 item(s)" in proc.stdout and "'juggling'" in proc.stdout
    assert "expvid: " in proc.stdout and "items: 30" in proc.stdout  # the others are still checked

    proc = run_cli("import", "--exact", str(exact_root))
    assert proc.returncode == 2 and "--out" in proc.stderr
