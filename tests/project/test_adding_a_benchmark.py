"""README "Adding a benchmark", done for real on a copy of the project: ExAct's folder copied
to copybench, renamed inside the folder, and one registry entry added to
evaluator/benchmarks/__init__.py. Nothing else outside the folder changes, and a fresh
Python process sees the sixth benchmark everywhere the site looks: the registry, its
paper's table on the papers' page, the Models page's columns and its own tab's title. A judge,
how its calls are asked, its column width, frame size and scoring readings are declared in the
copied folder alone too, and found in use (the second test)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path("evaluator/benchmarks/__init__.py")


def project_copy(target: Path) -> Path:
    """The files git would ship (tracked, and new ones not ignored), copied to `target`."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def add_copybench(repo: Path) -> None:
    """The README's steps: copy the folder, rename inside it, register it."""
    folder = repo / "evaluator/benchmarks/copybench"
    shutil.copytree(repo / "evaluator/benchmarks/exact", folder)
    for source in folder.glob("*.py"):
        text = source.read_text().replace("evaluator.benchmarks.exact", "evaluator.benchmarks.copybench")
        if source.name == "records.py":
            text = text.replace('NAME = "exact"', 'NAME = "copybench"').replace('TITLE = "ExAct"', 'TITLE = "Copy bench"')
        source.write_text(text)
    protocol = folder / "protocol.toml"
    protocol.write_text(protocol.read_text().replace("[frames.exact]", "[frames.copybench]")
                        .replace('benchmark = "exact"', 'benchmark = "copybench"')
                        .replace('title = "ExAct"', 'title = "Copy bench"'))
    reported = json.loads((folder / "reported.json").read_text())
    reported["benchmark"] = "copybench"
    reported["paper"]["title"] = "Copy bench: a copied paper"
    reported["paper"]["hub_dataset"] = "someone/CopyBench"
    (folder / "reported.json").write_text(json.dumps(reported, indent=1))
    (folder / "citation.bib").write_text("@misc{copybench2026,\n  title = {Copy bench: a copied paper}\n}\n")
    registry = repo / REGISTRY
    text = registry.read_text()
    text = text.replace("import causalstep, exact,", "import causalstep, exact, copybench,")
    text = text.replace("videommmu, videosimpleqa)}", "videommmu, videosimpleqa, copybench)}")
    registry.write_text(text)


def contents(repo: Path) -> dict[str, bytes]:
    """Every file outside the new folder, by its path in the repo."""
    return {str(p.relative_to(repo)): p.read_bytes() for p in repo.rglob("*")
            if p.is_file() and not {"copybench", "__pycache__"} & set(p.relative_to(repo).parts)}


PROBE = """
import json
import pandas as pd
from evaluator import benchmarks
from leaderboard import ui, views
from leaderboard.eval_results import benchmark_of
from leaderboard.reported import load_reported
from leaderboard.tabs.citation import citations
from leaderboard.views import REPORTED_SUITE

board = views.prepare(views.select_suite(pd.DataFrame(), REPORTED_SUITE))
mine = views.benchmark_view(board, "copybench")
print(json.dumps({
    "order": benchmarks.ORDER,
    "papers": [t.benchmark for t in load_reported()],
    "site_benchmarks": list(views.BENCHMARKS),
    "title": views.TITLES["copybench"],
    "models": [str(m) for m in mine[views.MODEL]],
    "rows": len(mine),
    "held": views.suite_benchmarks(board),
    "blurb": ui.BLURB,
    "citations": citations(),
    "model_pages": [benchmark_of(d, None, None) for d in ("someone/copybench", "alexhimself/ExAct")],
}))
"""


def test_a_copied_folder_and_one_registry_entry_make_a_sixth_benchmark_on_the_site(tmp_path):
    repo = project_copy(tmp_path / "repo")
    before = contents(repo)
    (tmp_path / "registry.py").write_bytes(before[str(REGISTRY)])
    add_copybench(repo)
    after = contents(repo)
    assert [name for name in after if after[name] != before.get(name)] == [str(REGISTRY)]
    diff = subprocess.run(["git", "diff", "--no-index", "--numstat", str(tmp_path / "registry.py"), str(repo / REGISTRY)],
                          capture_output=True, text=True).stdout.split()
    assert diff[:2] == ["2", "2"]  # the import and the registry's tuple: one entry, two places on its lines
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["order"][-1] == seen["papers"][-1] == seen["site_benchmarks"][-1] == "copybench"
    assert seen["title"] == "Copy bench" and "copybench" in seen["held"]
    assert "and **Copy bench**:" in seen["blurb"]  # the first page's line naming the benchmarks
    assert seen["citations"].index("@inproceedings{exact2025") < seen["citations"].index("@misc{copybench2026")
    assert seen["model_pages"] == ["copybench", "exact"]  # a model page's result naming its paper's dataset
    exact_rows = json.loads((ROOT / "evaluator/benchmarks/exact/reported.json").read_text())["rows"]
    assert seen["rows"] == len(exact_rows)  # every row of its paper's table, on its own tab
    assert {r["model"] for r in exact_rows} <= {m.split("](")[0].lstrip("[") for m in seen["models"]} | set(
        seen["models"])


def test_a_copied_table_still_naming_its_source_benchmark_is_refused(tmp_path):
    repo = project_copy(tmp_path / "repo")
    add_copybench(repo)
    reported = repo / "evaluator/benchmarks/copybench/reported.json"
    reported.write_text(reported.read_text().replace('"benchmark": "copybench"', '"benchmark": "exact"'))
    done = subprocess.run([sys.executable, "-c", "from leaderboard.reported import load_reported; load_reported()"],
                          cwd=repo, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert "copybench/reported.json" in done.stderr and "set it to 'copybench'" in done.stderr


def test_a_copied_protocol_still_naming_its_source_is_refused(tmp_path):
    repo = project_copy(tmp_path / "repo")
    add_copybench(repo)
    protocol = repo / "evaluator/benchmarks/copybench/protocol.toml"
    for old, new, said in (('title = "Copy bench"', 'title = "ExAct"', "title is 'ExAct', but the benchmark's "
                            "TITLE (records.py) is 'Copy bench'; make them the same"),
                           ('benchmark = "copybench"', 'benchmark = "exact"', "benchmark is 'exact', but this file is "
                            "in copybench's folder; set it to 'copybench'")):
        protocol.write_text(protocol.read_text().replace(old, new))
        done = subprocess.run([sys.executable, "-m", "evaluator", "protocol", "--benchmark", "copybench"], cwd=repo,
                              capture_output=True, text=True, timeout=300,
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
        assert done.returncode != 0 and "copybench/protocol.toml: " + said in done.stderr, done.stderr[-2000:]


def test_a_copied_table_still_naming_its_source_papers_hub_dataset_is_refused(tmp_path):
    repo = project_copy(tmp_path / "repo")
    add_copybench(repo)
    reported = repo / "evaluator/benchmarks/copybench/reported.json"
    exacts = json.loads((repo / "evaluator/benchmarks/exact/reported.json").read_text())["paper"]["hub_dataset"]
    reported.write_text(reported.read_text().replace('"someone/CopyBench"', json.dumps(exacts.upper())))
    said = f"copybench's reported.json: paper.hub_dataset '{exacts.upper()}' is also exact's"
    # Reading a model page's results, and the site at start (its first step, before it needs its stores)
    for probe in ("from leaderboard.eval_results import benchmark_of; benchmark_of('x/y', None, None)",
                  "from leaderboard.ui import build_ui; build_ui(None, None, None)"):
        done = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True, timeout=300,
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
        assert done.returncode != 0
        assert done.stderr.strip().splitlines()[-1].endswith(said + "; set it to the dataset its own paper "
                                                            "released, or null"), done.stderr[-2000:]


# What else a benchmark may declare, each in its own folder (evaluator/benchmarks/hooks.py):
# a judge's grading task, how its calls are asked, its leaderboard column, its frame size and
# its own scoring options (readings of its paper, in protocol.toml).
HOOKS = '''
JUDGE_TASK = "blank"
JUDGE_TITLE = "Copy bench (each answer)"
SEPARATE_CALL_KINDS = ("mcq",)
COLUMN_WIDTH = 140
'''
READINGS = '''
[scoring]
reading = "short"

[scoring.readings.short]
rule = "the short reading"

[scoring.readings.long]
rule = "the long reading"
'''

DECLARED_PROBE = """
import json
from evaluator import benchmarks, reference
from evaluator.judges import judges_from
from evaluator.records import Call
from evaluator.runners import schedule
from evaluator.runners.reference_run import generation_plans
from leaderboard import judge_figures
from leaderboard.views.table import WIDTHS
from space_config.settings import get_settings

settings = get_settings()
calls = [Call(f"copybench/{i}", "copybench", str(i), "mcq", "?", "choice") for i in range(3)]
options = reference.reading_options(settings.readings)
print(json.dumps({
    "judged": list(benchmarks.JUDGED),
    "judge_set": sorted(judges_from(settings, judged=benchmarks.JUDGED).judges()),
    "own_judge": settings.judges.by_benchmark.get("copybench"),
    "about": judge_figures.judges_markdown(settings.judge, settings.judges.by_benchmark, {}),
    "passes": [[p.stage, p.mode, len(p.calls)] for p in schedule.plan_passes(calls)],
    "size": generation_plans(["copybench"], thinking=False)["copybench"].size,
    "width": WIDTHS[benchmarks.BENCHMARKS["copybench"].TITLE],
    "recorded": reference.resolve_options(options).record(),
}))
"""


def test_a_judged_benchmark_with_its_own_passes_size_and_readings_needs_only_its_folder(tmp_path):
    repo = project_copy(tmp_path / "repo")
    before = contents(repo)
    add_copybench(repo)
    folder = repo / "evaluator/benchmarks/copybench"
    (folder / "__init__.py").write_text((folder / "__init__.py").read_text() + HOOKS)
    protocol = folder / "protocol.toml"
    text = protocol.read_text().replace("width = 796\nheight = 448", "width = 640\nheight = 360")
    protocol.write_text(text.replace("\n[judge]", READINGS + "\n[judge]", 1))
    after = contents(repo)
    assert [name for name in after if after[name] != before.get(name)] == [str(REGISTRY)]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path),
           "LEADERBOARD_JUDGE_COPYBENCH": "normalized-match", "LEADERBOARD_COPYBENCH_READING": "long"}
    done = subprocess.run([sys.executable, "-c", DECLARED_PROBE], cwd=repo, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["judged"][-1] == "copybench" and "copybench" in seen["judge_set"]  # judged, with its own judge
    assert seen["own_judge"] == "normalized-match" and "LEADERBOARD_JUDGE_COPYBENCH" in seen["about"]
    assert "**Copy bench (each answer)**" in seen["about"]
    assert seen["passes"] == [["copybench mcq", "independent", 3]]  # its own call kinds, in a pass of their own
    assert seen["size"] == "640x360" and seen["width"] == 140
    assert seen["recorded"]["copybench_rule"] == "long"  # its own scoring option, recorded as results always were
    assert seen["recorded"]["causalstep_restart"] == "prose"
