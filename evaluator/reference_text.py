"""The reference protocols (evaluator/reference.py) as people read them: plain text for
`python -m evaluator protocol`, and the Markdown tables docs/protocol.md holds between
its TABLES_BEGIN / TABLES_END markers (`python -m evaluator protocol --markdown` prints
them; a test checks that the page holds exactly what this prints).
"""

from __future__ import annotations

from evaluator.reference import BenchmarkProtocol, FrameRule, protocol

TABLES_BEGIN = "<!-- protocol tables: printed by `python -m evaluator protocol --markdown`; do not edit by hand -->"
TABLES_END = "<!-- end of protocol tables -->"


def frames_text(rule: FrameRule) -> str:
    if not rule.budget:
        return f"{rule.count} per call"
    models = (f"; {len(rule.paper_models)} models the paper ran get its count for them" if rule.paper_models
              else "")
    return f"{rule.min}-{rule.max}, chosen per model (default {rule.default}{models})"


def generation_text(proto: BenchmarkProtocol) -> str:
    g = proto.generation
    decoding = "greedy" if g.temperature == 0 else f"temperature {g.temperature}"
    tokens = f"up to {g.max_new_tokens:,} new tokens" + (
        f" ({g.max_new_tokens_thinking:,} thinking)" if g.max_new_tokens_thinking != g.max_new_tokens else "")
    runs = "one run" if g.runs == 1 else f"{g.runs} runs, {g.combine}"
    return f"{decoding}, {tokens}, {runs}"


def judge_text(proto: BenchmarkProtocol) -> str:
    j = proto.judge
    return f"none ({j.grades})" if j.model == "none" else f"{j.model}, sees {j.sees}: {j.grades}"


def text(name: str) -> str:
    """One benchmark's protocol, every value with where it comes from."""
    p = protocol(name)
    lines = [f"{p.title} ({p.benchmark}): {p.paper}"]
    for key, rule in p.frames.items():
        lines.append(f"  frames {key}: {frames_text(rule)}   [{rule.source}]")
        if rule.rule:
            lines.append(f"      rule: {rule.rule}")
        for model, n in rule.paper_models.items():
            lines.append(f"      {model}: {n}")
    lines += [f"  resolution: {p.resolution.text()}   [{p.resolution.source}]",
              f"  prompt: labels {p.prompt.labels}; adds {', '.join(p.prompt.context)}; answer {p.prompt.answer}"
              f"   [{p.prompt.source}]",
              f"  generation: {generation_text(p)}   [{p.generation.source}]",
              f"  judge: {judge_text(p)}   [{p.judge.source}]"]
    lines += scoring_lines(p)
    differs = p.differences()
    lines.append(f"  differences from the paper: {len(differs)}" if differs else "  differences from the paper: none")
    lines += [f"    - {row.point}: paper {row.paper}; ours {row.ours}. Why: {row.why}" for row in differs]
    return "\n".join(lines)


def scoring_lines(p: BenchmarkProtocol) -> list[str]:
    """Scoring choices; for CausalStep, the reading in use by default and what each reads."""
    lines = []
    readings = p.scoring.get("readings") or {}
    for key, value in p.scoring.items():
        if key == "reading":
            lines.append(f"  scoring: the {value} reading by default (LEADERBOARD_CAUSALSTEP_READING chooses)")
        elif not isinstance(value, dict):
            lines.append(f"  scoring, {key.replace('_', ' ')}: {value}")
    for name, rules in readings.items():
        lines.append(f"    {name} reading: " + "; ".join(f"{v}" for k, v in rules.items() if k != "source")
                     + f"   [{rules.get('source', '')}]")
    return lines


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ") or "-"


def markdown_table(name: str) -> str:
    """One benchmark's table: point / paper / official code / ours / same, or why not."""
    p = protocol(name)
    rows = [f"### {p.title}: paper, official code and ours", "",
            f"Paper: {p.paper}. Frames: " + "; ".join(f"`{k}` {frames_text(r)}" for k, r in p.frames.items())
            + f". Resolution: {p.resolution.text()}. Generation: {generation_text(p)}. "
            f"Judge in the paper: {judge_text(p)}.", "",
            "| point | paper | official code | ours | verdict |", "|---|---|---|---|---|"]
    for row in p.compare:
        verdict = row.verdict if row.verdict != "differs" else f"**differs**: {row.why}"
        rows.append("| " + " | ".join(_cell(v) for v in (row.point, row.paper, row.code, row.ours, verdict)) + " |")
    return "\n".join(rows)


def markdown_tables(names: list[str]) -> str:
    """Every benchmark's table between the page's markers."""
    return "\n\n".join([TABLES_BEGIN, *(markdown_table(n) for n in names), TABLES_END])


__all__ = ["TABLES_BEGIN", "TABLES_END", "frames_text", "generation_text", "markdown_table", "markdown_tables", "text"]
