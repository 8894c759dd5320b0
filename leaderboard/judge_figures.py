"""The About tab's judge section, as Markdown: which judge grades each judged benchmark on
this site, what the paper graded with, and how well our judge agrees with the papers'
grading rules on labelled answers (docs/judge_agreement.json, written by
`python bench/judge_agreement.py --record`). Pure: no gradio, no store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator import benchmarks, reference

ROOT = Path(__file__).resolve().parent.parent
FIGURES_PATH = ROOT / "docs" / "judge_agreement.json"
# judged benchmark -> (its title, the labelled set's benchmark key), from each one's folder
JUDGED = {name: (benchmarks.hook(name, "JUDGE_TITLE", benchmarks.BENCHMARKS[name].TITLE),
                 benchmarks.hook(name, "JUDGE_LABELS_KEY", name)) for name in benchmarks.JUDGED}
# labelled set folder -> how it was used, newest last
SETS = {"judge_labels": "first set, tuned against",
        "judge_labels_holdout": "second set, measured once, then tuned against",
        "judge_labels_final": "third set, measured once, then tuned against",
        "judge_labels_final2": "fourth set, measured once, then tuned against",
        "judge_labels_fresh": "fifth set, measured once, then tuned against",
        "judge_labels_fresh2": "sixth set, measured once, then tuned against",
        "judge_labels_fresh3": "seventh set, measured once, then tuned against",
        "judge_labels_fresh4": "eighth set, measured once, then tuned against",
        "judge_labels_fresh5": "newest set (Video SimpleQA), not tuned against"}


def load_figures(path: Path = FIGURES_PATH) -> dict[str, Any]:
    """The recorded agreement figures; {} when the file is missing or unreadable (the
    section then says the judges are not measured, rather than failing the tab)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def describe(name: str) -> str:
    """A judge setting in words."""
    if name == "normalized-match":
        return "`normalized-match`, our offline matcher (string matching: not comparable with the paper's judge)"
    if name.startswith("llm:"):
        return f"`{name}`, an LLM run on our worker with our grading prompt"
    if name.startswith("openai:"):
        return f"`{name}`, an LLM behind an OpenAI-compatible endpoint, with our grading prompt"
    if name.startswith("hf:"):
        return f"`{name}`, an LLM served by Hugging Face Inference Providers, with our grading prompt"
    return f"`{name}`"


def judges_markdown(default: str, by_benchmark: dict[str, str], figures: dict[str, Any],
                    frames: int = 0) -> str:
    """The section: each judged benchmark's judge on this site and the paper's, then the
    agreement figures of every judge in use (or that it has not been measured)."""
    used = {bench: by_benchmark.get(bench) or default for bench in JUDGED}
    titles = " and ".join(title for title, _ in JUDGED.values())
    settings = ", ".join(f"`LEADERBOARD_JUDGE_{bench.upper()}`" for bench in JUDGED)
    lines = ["## The judges",
             f"{titles} answers are graded by a judge; each has its own "
             f"setting ({settings}, else `LEADERBOARD_JUDGE`). "
             "Every row names its judge on its protocol card, and rows graded by different judges are not ranked "
             "together. How each judge grades, and how it was measured: below.", ""]
    for bench, (title, _) in JUDGED.items():
        paper = reference.protocol(bench).judge
        remote = used[bench].startswith(("openai:", "hf:"))
        sees = frames and remote and benchmarks.hook(bench, "JUDGE_SEES_FRAMES", False)
        seen = f"; shown {frames} frames of the video" if sees else ""
        lines.append(f"- **{title}**: {describe(used[bench])}{seen}. The paper: {paper.model}, which saw "
                     f"{paper.sees}.")
    lines += ["", "**Agreement with the papers' grading rules** on labelled answers written by testers who never "
              "saw the judge (Cohen's kappa over the answers the judge decided; abstained: left unscored; wrong "
              "graded correct: of the answers the labels call wrong):", ""]
    for name in dict.fromkeys(used.values()):
        lines += _figures_table(name, figures.get(name))
    return "\n".join(lines)


def _figures_table(name: str, entry: dict[str, Any] | None) -> list[str]:
    if not entry or not entry.get("sets"):
        return [f"- `{name}`: not measured on our labelled sets yet (`python bench/judge_agreement.py --judge {name} "
                "--labels tests/data/judge_labels_fresh4 --record`).", ""]
    rows = [f"`{entry.get('judge_id', name)}`:", "",
            "| labelled set | benchmark | answers | kappa | abstained | wrong graded correct |",
            "|---|---|---|---|---|---|"]
    order = [s for s in SETS if s in entry["sets"]] + sorted(set(entry["sets"]) - set(SETS))
    for folder in order:
        for bench, (title, key) in JUDGED.items():
            f = entry["sets"][folder].get(key)
            if f is None:
                continue
            kappa = "n/a" if f.get("kappa") is None else f"{f['kappa']:.2f}"
            rows.append(f"| {SETS.get(folder, folder)} | {title} | {f.get('items')} | {kappa} | "
                        f"{f.get('abstain', 0):.1%} | {f.get('wrong_as_correct', 0):.1%} |")
    return rows + [""]


__all__ = ["FIGURES_PATH", "describe", "judges_markdown", "load_figures"]
