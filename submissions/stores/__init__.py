"""The five stores of a deployment, opened from the settings.

    stores = open_stores(get_settings())     # local folders or Hub dataset repos
    stores.requests.read("3f2a.json")

Local: one folder per store under `settings.home` (LEADERBOARD_HOME).
Hub: one dataset repo per store, `<LEADERBOARD_HUB_OWNER>/<LEADERBOARD_HUB_PREFIX>-<name>`
(create them with `python -m evaluator create-repos`).
Either way each store is wrapped in a RetryingStore, so passing network failures are retried.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from submissions.errors import StoreError
from submissions.stores.base import PUBLIC, STORE_NAMES, Store, Versioned
from submissions.stores.local import LocalStore
from submissions.stores.retry import RetryingStore

if TYPE_CHECKING:
    from space_config.settings import Settings

__all__ = ["PUBLIC", "STORE_NAMES", "LocalStore", "RetryingStore", "Store", "Stores", "Versioned", "open_stores"]


@dataclass
class Stores:
    requests: Store  # public: one JSON per submission
    results: Store  # public: one JSON per finished submission + leaderboard.parquet
    suite: Store  # public: suites' questions and videos, never answers
    answers: Store  # private: answer keys, read by the worker only
    private: Store  # private: uploaded predictions, logs, raw outputs

    @classmethod
    def local(cls, home: Path) -> Stores:
        """Five folders under `home`, created if missing."""
        home = Path(home)
        return cls(**{name: RetryingStore(LocalStore(home / name, name)) for name in STORE_NAMES})

    @classmethod
    def hub(cls, owner: str, prefix: str, token: str | None, api=None, cache_dir: Path | None = None) -> Stores:
        """Five dataset repos `<owner>/<prefix>-<name>`; nothing is contacted until first use."""
        from huggingface_hub import HfApi  # imported here: a local deployment never needs it

        from submissions.stores.hub import HubStore, hub_repo_id

        api = api if api is not None else HfApi(token=token)
        return cls(**{
            name: RetryingStore(HubStore(hub_repo_id(owner, prefix, name), name, token, api=api,
                                         cache_dir=None if cache_dir is None else Path(cache_dir) / name))
            for name in STORE_NAMES})

    def items(self) -> list[tuple[str, Store]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]


def open_stores(settings: Settings) -> Stores:
    if settings.store == "local":
        return Stores.local(settings.home)
    if settings.store == "hub":
        if not settings.hub_owner:
            raise StoreError("LEADERBOARD_STORE=hub needs LEADERBOARD_HUB_OWNER: the user or organisation "
                             "that owns the five dataset repos")
        return Stores.hub(settings.hub_owner, settings.hub_prefix, settings.hf_token)
    raise StoreError(f"LEADERBOARD_STORE={settings.store!r} is not a store kind; use 'local' or 'hub'")
