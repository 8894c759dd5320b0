"""The five Hub dataset repos of a new deployment (`create_repos`), and their histories
squashed on a maintainer's schedule (`squash_histories`); cli/deploy.py gives them their
commands, `python -m evaluator create-repos` and `squash-history`.

requests, results and suite are public; answers and private are private (base.PUBLIC).
Running it again is harmless: existing repos are kept. One thing it does change on an
existing repo: a store that must be private but is public is made private, because
answer keys or uploaded predictions must never be readable by everyone. A store meant
to be public that is private is left alone with a warning (making data public is a
decision for a person).
"""

from __future__ import annotations

import logging

from submissions.errors import SubmissionError
from submissions.stores.base import PUBLIC, STORE_NAMES

log = logging.getLogger(__name__)
REPO_TYPE = "dataset"
DEFAULT_PREFIX = "video-reasoning-leaderboard"  # as space_config/settings.py's LEADERBOARD_HUB_PREFIX


def create_repos(owner: str, prefix: str, token: str | None, api=None) -> dict[str, str]:
    """Create (or keep) `<owner>/<prefix>-<name>` for each store; returns {store name: repo url}."""
    # imported here so that `python -m evaluator --help` does not load huggingface_hub
    from submissions.stores.hub import hub_repo_id

    if api is None:
        from huggingface_hub import HfApi

        api = HfApi(token=token)
    urls = {}
    for name in STORE_NAMES:
        repo_id = hub_repo_id(owner, prefix, name)
        private = not PUBLIC[name]
        url = api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
        _check_visibility(api, repo_id, name, private)
        urls[name] = str(url)
    return urls


def _check_visibility(api, repo_id: str, name: str, private: bool) -> None:
    # create_repo(exist_ok=True) does not touch an existing repo's visibility
    info = api.repo_info(repo_id, repo_type=REPO_TYPE, expand=["private"])
    if info.private == private:
        return
    if private:
        api.update_repo_settings(repo_id, repo_type=REPO_TYPE, private=True)
        log.warning("%s (store %r) was public; it holds %s, so it is now private", repo_id, name,
                    "answer keys" if name == "answers" else "uploads and logs")
    else:
        log.warning("%s (store %r) is private but the site and its visitors expect it public; "
                    "make it public in the repo settings on the Hub if that is intended", repo_id, name)


def squash_histories(stores, names: list[str]) -> dict[str, int]:
    """Squash the history of each named Hub store into one commit; {name: the files it holds}.
    Safe while workers and the site write: a write whose parent vanished commits again on the
    new head, a read reads the head again."""
    done = {}
    for name in names:
        store = getattr(stores, name)
        squash = getattr(store, "squash_history", None)
        if squash is None:
            raise SubmissionError(f"store {name!r} is not on the Hub: only a Hub repo has a history to squash")
        squash(f"Squash the {name} store's history (python -m evaluator squash-history)")
        done[name] = len(store.list())
    return done
