"""README "Adding a benchmark", done for real on a copy of the project: ExAct's folder copied
to mybench, renamed inside the folder, and one registry entry added to
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


def add_mybench(repo: Path) -> None:
    """The README's steps: copy the folder, rename inside it, register it."""
    folder = repo / "evaluator/benchmarks/mybench"
    shutil.copytree(repo / "evaluator/benchmarks/exact", folder)
    for source in folder.glob("*.py"):
        text = source.read_text().replace("evaluator.benchmarks.exact", "evaluator.benchmarks.mybench")
        if source.name == "records.py":
            text = text.replace('NAME = "exact"', 'NAME = "mybench"').replace('TITLE = "ExAct"', 'TITLE = "My bench"')
        source.write_text(text)
    protocol = folder / "protocol.toml"
    protocol.write_text(protocol.read_text().replace("[frames.exact]", "[frames.mybench]")
                        .replace('benchmark = "exact"', 'benchmark = "mybench"'))
    reported = json.loads((folder / "reported.json").read_text())
    reported["benchmark"] = "mybench"
    reported["paper"]["title"] = "My bench: a copied paper"
    (folder / "reported.json").write_text(json.dumps(reported, indent=1))
    registry = repo / REGISTRY
    text = registry.read_text()
    text = text.replace("import causalstep, exact,", "import causalstep, exact, mybench,")
    text = text.replace("videommmu, videosimpleqa)}", "videommmu, videosimpleqa, mybench)}")
    registry.write_text(text)


def contents(repo: Path) -> dict[str, bytes]:
    """Every file outside the new folder, by its path in the repo."""
    return {str(p.relative_to(repo)): p.read_bytes() for p in repo.rglob("*")
            if p.is_file() and not {"mybench", "__pycache__"} & set(p.relative_to(repo).parts)}


PROBE = """
import json
import pandas as pd
from evaluator import benchmarks
from leaderboard import views
from leaderboard.reported import load_reported
from leaderboard.views import REPORTED_SUITE

board = views.prepare(views.select_suite(pd.DataFrame(), REPORTED_SUITE))
mine = views.benchmark_view(board, "mybench")
print(json.dumps({
    "order": benchmarks.ORDER,
    "papers": [t.benchmark for t in load_reported()],
    "site_benchmarks": list(views.BENCHMARKS),
    "title": views.TITLES["mybench"],
    "models": [str(m) for m in mine[views.MODEL]],
    "rows": len(mine),
    "held": views.suite_benchmarks(board),
}))
"""


def test_a_copied_folder_and_one_registry_entry_make_a_sixth_benchmark_on_the_site(tmp_path):
    repo = project_copy(tmp_path / "repo")
    before = contents(repo)
    (tmp_path / "registry.py").write_bytes(before[str(REGISTRY)])
    add_mybench(repo)
    after = contents(repo)
    assert [name for name in after if after[name] != before.get(name)] == [str(REGISTRY)]
    diff = subprocess.run(["git", "diff", "--no-index", "--numstat", str(tmp_path / "registry.py"), str(repo / REGISTRY)],
                          capture_output=True, text=True).stdout.split()
    assert diff[:2] == ["2", "2"]  # the import and the registry's tuple: one entry, two places on its lines
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["order"][-1] == seen["papers"][-1] == seen["site_benchmarks"][-1] == "mybench"
    assert seen["title"] == "My bench" and "mybench" in seen["held"]
    exact_rows = json.loads((ROOT / "evaluator/benchmarks/exact/reported.json").read_text())["rows"]
    assert seen["rows"] == len(exact_rows)  # every row of its paper's table, on its own tab
    assert {r["model"] for r in exact_rows} <= {m.split("](")[0].lstrip("[") for m in seen["models"]} | set(
        seen["models"])


def test_a_copied_table_still_naming_its_source_benchmark_is_refused(tmp_path):
    repo = project_copy(tmp_path / "repo")
    add_mybench(repo)
    reported = repo / "evaluator/benchmarks/mybench/reported.json"
    reported.write_text(reported.read_text().replace('"benchmark": "mybench"', '"benchmark": "exact"'))
    done = subprocess.run([sys.executable, "-c", "from leaderboard.reported import load_reported; load_reported()"],
                          cwd=repo, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert "mybench/reported.json" in done.stderr and "set it to 'mybench'" in done.stderr


# What else a benchmark may declare, each in its own folder (evaluator/benchmarks/hooks.py):
# a judge's grading task, how its calls are asked, its leaderboard column, its frame size and
# its own scoring options (readings of its paper, in protocol.toml).
HOOKS = '''
JUDGE_TASK = "blank"
JUDGE_TITLE = "My bench (each answer)"
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
calls = [Call(f"mybench/{i}", "mybench", str(i), "mcq", "?", "choice") for i in range(3)]
options = reference.reading_options(settings.readings)
print(json.dumps({
    "judged": list(benchmarks.JUDGED),
    "judge_set": sorted(judges_from(settings, judged=benchmarks.JUDGED).judges()),
    "own_judge": settings.judges.by_benchmark.get("mybench"),
    "about": judge_figures.judges_markdown(settings.judge, settings.judges.by_benchmark, {}),
    "passes": [[p.stage, p.mode, len(p.calls)] for p in schedule.plan_passes(calls)],
    "size": generation_plans(["mybench"], thinking=False)["mybench"].size,
    "width": WIDTHS[benchmarks.BENCHMARKS["mybench"].TITLE],
    "recorded": reference.resolve_options(options).record(),
}))
"""


def test_a_judged_benchmark_with_its_own_passes_size_and_readings_needs_only_its_folder(tmp_path):
    repo = project_copy(tmp_path / "repo")
    before = contents(repo)
    add_mybench(repo)
    folder = repo / "evaluator/benchmarks/mybench"
    (folder / "__init__.py").write_text((folder / "__init__.py").read_text() + HOOKS)
    protocol = folder / "protocol.toml"
    text = protocol.read_text().replace("width = 796\nheight = 448", "width = 640\nheight = 360")
    protocol.write_text(text.replace("\n[judge]", READINGS + "\n[judge]", 1))
    after = contents(repo)
    assert [name for name in after if after[name] != before.get(name)] == [str(REGISTRY)]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path),
           "LEADERBOARD_JUDGE_MYBENCH": "normalized-match", "LEADERBOARD_MYBENCH_READING": "long"}
    done = subprocess.run([sys.executable, "-c", DECLARED_PROBE], cwd=repo, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["judged"][-1] == "mybench" and "mybench" in seen["judge_set"]  # judged, with its own judge
    assert seen["own_judge"] == "normalized-match" and "LEADERBOARD_JUDGE_MYBENCH" in seen["about"]
    assert "**My bench (each answer)**" in seen["about"]
    assert seen["passes"] == [["mybench mcq", "independent", 3]]  # its own call kinds, in a pass of their own
    assert seen["size"] == "640x360" and seen["width"] == 140
    assert seen["recorded"]["mybench_rule"] == "long"  # its own scoring option, recorded as results always were
    assert seen["recorded"]["causalstep_restart"] == "prose"
