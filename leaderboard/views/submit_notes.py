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
