"""Results -> the leaderboard table (pure pandas, no gradio import)."""

from __future__ import annotations

import pandas as pd

from evaluator.benchmarks import ORDER
from evaluator.result import Result


def _cell(scores: dict, name: str) -> float | None:
    return scores.get(name, {}).get("overall")


def leaderboard_frame(results: list[Result]) -> pd.DataFrame:
    """One row per result: the five headlines, their average (only when all five
    exist), and who/what was evaluated. Sorted by average, then by name."""
    rows = []
    for r in results:
        row = {"model": r.submission.get("model") or r.submission.get("id", "?"),
               "kind": r.submission.get("kind", ""), "judge": r.judge.get("id", ""),
               "suite": r.suite_id}
        values = [_cell(r.scores, name) for name in ORDER]
        for name, value in zip(ORDER, values):
            row[name] = value
        row["average"] = round(sum(values) / len(values), 2) if all(v is not None for v in values) else None
        rows.append(row)
    columns = ["model", "average", *ORDER, "kind", "judge", "suite"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values(["average", "model"], ascending=[False, True], na_position="last",
                             ignore_index=True)
