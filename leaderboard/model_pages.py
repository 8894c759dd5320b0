"""A verified result on its model's Hub page: a pull request on the model repo adding one
`.eval_results/<benchmark>.yaml` file per benchmark (leaderboard/eval_results.py), always a
pull request, never a push to the model's main branch.

    opened = open_results_pr(api, row, site)   # api: an HfApi with the token of whoever opens it

Once per result: the pull request's title names the submission, and before opening one the
model's pull requests are looked through (get_repo_discussions); one of this submission's that
is open, or merged, is returned instead of a new one (`Opened.new` False). A closed one does not
count: asking again opens a new pull request. Nothing of ours is written by any of this: a Hub
that fails or refuses leaves the result as it was, and the same call can be made again.

The site offers it to a result's own submitter (Queue tab, My submissions, with their Hugging
Face sign-in), and maintainers run it from the command line (`python -m evaluator eval-results pr`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from leaderboard.eval_results import HubResultsError, Site, row_link, verified_files

if TYPE_CHECKING:
    from huggingface_hub import HfApi

log = logging.getLogger(__name__)

TITLE = "Add verified results from the Video Reasoning Leaderboard (submission {id})"
KEPT = ("open", "draft", "merged")  # a PR in one of these is this result's; a closed one is not


@dataclass(frozen=True)
class Opened:
    url: str  # the pull request's page on the Hub
    num: int
    new: bool  # False: this result's pull request was already there
    status: str  # "open" (or "draft") or "merged"
    files: tuple[str, ...] = ()


def marker(submission_id: str) -> str:
    return f"(submission {submission_id})"


def description(row: Mapping, site: Site, files: Mapping[str, str]) -> str:
    listed = "\n".join(f"- `{path}`" for path in files)
    return (f"This pull request adds the scores the Video Reasoning Leaderboard verified for this model, as "
            f"the Hub's evaluation results (`.eval_results/`), one file per benchmark:\n\n{listed}\n\n"
            f"Each file gives the benchmark's overall score, the date of the run, a link to its row on the "
            f"leaderboard ({row_link(site, row)}) and, in its notes, the suite version and the protocol (frames, "
            f"judge). Our worker ran the model against answers the public never sees. Merge it to show the scores "
            f"on the model page.")


def verified_row(table: pd.DataFrame, submission_id: str) -> dict:
    """The published table's row of one submission, as a dict; a clear error when there is none."""
    if "id" not in table.columns or not (table["id"].astype("string") == submission_id).any():
        raise HubResultsError(f"Submission {submission_id} has no published result yet: it goes on the model page "
                              f"once its row is on the leaderboard.")
    row = table[(table["id"].astype("string") == submission_id).fillna(False).to_numpy(bool)].iloc[0]
    return {k: (None if not isinstance(v, (str, bytes, list, dict)) and pd.isna(v) else v) for k, v in row.items()}


def find_pr(api: HfApi, model: str, submission_id: str):
    """This submission's pull request on the model (open, draft or merged), newest first; None."""
    wanted = marker(submission_id)
    for found in api.get_repo_discussions(model, discussion_type="pull_request", repo_type="model"):
        if wanted in found.title and found.status in KEPT:
            return found
    return None


def open_results_pr(api: HfApi, row: Mapping, site: Site) -> Opened:
    """Open (or find) the pull request adding this verified row's results to its model repo.
    Raises HubResultsError with a message a person can act on."""
    from huggingface_hub import CommitOperationAdd

    files = verified_files(row, site)
    model, submission = str(row["model"]), str(row["id"])
    try:
        found = find_pr(api, model, submission)
        if found is not None:
            return Opened(found.url, found.num, False, found.status, tuple(files))
        info = api.create_commit(model, [CommitOperationAdd(path, text.encode()) for path, text in files.items()],
                                 commit_message=TITLE.format(id=submission),
                                 commit_description=description(row, site, files), repo_type="model",
                                 create_pr=True)
    except Exception as e:  # noqa: BLE001 - every Hub failure becomes one message; nothing of ours changed
        raise refusal(e, model) from e
    log.info("opened %s for %s", info.pr_url, submission)
    return Opened(info.pr_url, int(info.pr_num), True, "open", tuple(files))


def refusal(error: Exception, model: str) -> HubResultsError:
    """What a person can do about a Hub error (a refusal, a missing repo, a failure)."""
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    if isinstance(error, HubResultsError):
        return error
    status = getattr(getattr(error, "response", None), "status_code", None)
    if isinstance(error, RepositoryNotFoundError) or status == 404:
        return HubResultsError(f"The Hub has no model {model} that this account can see: nothing was opened.")
    if status in (401, 403):
        return HubResultsError(f"Your Hugging Face account may not open a pull request on {model} (the Hub answered "
                               f"{status}): nothing was written. Sign in again allowing the site to open pull "
                               f"requests for you, or ask the model's owners to add the files.")
    if status == 429:
        return HubResultsError("The Hub is limiting requests right now: nothing was opened. Try again in a few "
                               "minutes; your result stays published.")
    if isinstance(error, (HfHubHTTPError, OSError, TimeoutError)) or status is not None or _transport(error):
        log.warning("opening a results pull request on %s failed: %s", model, error)
        return HubResultsError(f"The Hub did not complete the request ({status or type(error).__name__}): no pull "
                               f"request was opened on {model}. Your result stays published; try again in a moment.")
    log.exception("opening a results pull request on %s failed", model, exc_info=error)
    return HubResultsError(f"Opening the pull request on {model} failed on our side: nothing was opened. Try again "
                           f"in a moment.")


def _transport(error: Exception) -> bool:
    """A connection or timeout error of the HTTP client huggingface_hub uses (httpx or its fork)."""
    return any(c.__module__.split(".")[0].startswith("httpx") for c in type(error).__mro__)
