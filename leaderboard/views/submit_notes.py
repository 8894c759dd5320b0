"""What the Submit tab tells a submitter beside the forms: where the suite's videos are, and
which multiple-choice answers of an upload the answer reader finds no option in. Pure text,
no gradio: leaderboard/tabs/submit.py shows it."""

from __future__ import annotations

from leaderboard.views.columns import TITLES


def videos_text(settings, store, suite_id: str) -> str:
    """Where the suite's videos are: each call's `file` in the call list is a path inside this folder
    (`store`: the suite store; its own folder where it is local, the dataset's where it is on the Hub)."""
    if settings.store == "hub" and settings.hub_owner:
        from submissions.stores.hub import hub_repo_id  # the Hub client: only where the stores are on the Hub

        repo = hub_repo_id(settings.hub_owner, settings.hub_prefix, "suite")
        return (f"Its videos are in the public dataset [{repo}](https://huggingface.co/datasets/{repo}/tree/main/"
                f"{suite_id}), folder `{suite_id}/` (each call's `file` is a path inside it); to fetch them: "
                f"`hf download {repo} --repo-type dataset --include \"{suite_id}/*\" --local-dir .`")
    folder = store.local_folder(suite_id).resolve()
    return f"Its videos are in the folder `{folder}` on this machine (each call's `file` is a path inside it)."


def budget_name(key: str) -> str:
    """A frame budget's key in words: "expvid_level3" -> "ExpVid level 3", "causalstep_segment"
    -> "CausalStep segments"."""
    bench, _, part = key.partition("_")
    part = "segments" if part == "segment" else part.replace("level", "level ")
    return f"{TITLES.get(bench, bench)} {part}".strip()


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def checked_text(checked, suite_id: str) -> str:
    """What the upload's check found in a file it accepts: its predictions, and a warning
    where calls have none (each counts as wrong, and the submission still uses a slot)."""
    text = (f"{_plural(checked.predictions, 'prediction', 'predictions')} for {checked.answered} of the "
            f"{checked.calls} calls of suite `{suite_id}`; ready to submit.")
    if checked.in_context:  # why there are more predictions than calls
        text += (f" Of them, {checked.in_context} answer CausalStep's "
                 f"{_plural(checked.context_calls, 'call', 'calls')} that follow an earlier step, once for each "
                 f"answer your model gave to that step (the lines with \"context\").")
    if checked.missing:
        text += "\n\n⚠️ " + missing_text(checked.coverage) + (
            " Submitting uses one of your submissions either way: add the missing answers first if your model has "
            "them (a file that later adds only a few answers to one already scored is refused as too close to it).")
    return text


def missing_text(coverage) -> str:
    """What calls without a prediction do, per benchmark (`coverage`: Checked.coverage): in a benchmark
    answered in part each counts as wrong (◐ beside its score); a benchmark answered not at all gets no
    score, and so the row no Average."""
    part = [(b, total - done) for b, done, total in coverage if 0 < done < total]
    none = [TITLES.get(b, b) for b, done, total in coverage if total and not done]
    out = []
    if part:
        where = ", ".join(f"{TITLES.get(b, b)} {n}" for b, n in part)
        out.append(f"{_plural(sum(n for _, n in part), 'call has', 'calls have')} no prediction in benchmarks you "
                   f"answered ({where}): each counts as wrong in its benchmark's score, marked ◐.")
    if none:
        out.append(f"No prediction at all in {', '.join(none)}: no score there, so the row has no Average and comes "
                   "after every row that has one.")
    return " ".join(out)


def unread_text(checked) -> str:
    """A warning where the answer reader finds no option in some multiple-choice answers."""
    if not checked.unread:
        return ""
    total = sum(n for _, n in checked.unread)
    where = ", ".join(f"{TITLES.get(b, b)} {n}" for b, n in checked.unread)
    examples = ", ".join(f"`{i}`" for i in checked.unread_examples)  # ids of our own calls
    return (f"\n\n⚠️ In {total} of {checked.choice_answers} multiple-choice answers ({where}) the answer reader finds "
            f"no option: they will count as unparseable, that is wrong. First: {examples}. Each call's prompt lists "
            "its option labels (letters or numbers); end the answer with one of them, e.g. `\\boxed{B}`.")
