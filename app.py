"""The Space entry point: builds the UI, nothing else.

In the embedded default (local store) the first start publishes the demo suite and
scores the built-in baselines, and a worker runs in this process.

    python app.py     # serves on GRADIO_SERVER_NAME (default 0.0.0.0) : GRADIO_SERVER_PORT (default 7860)
                      # and the open exports' JSON endpoint under /api/v1/ (leaderboard/api.py),
                      # and a model run's raw outputs to its submitter at /raw-outputs/ (leaderboard/outputs_api.py)
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import evaluator  # noqa: F401  first: it sets OpenBLAS's idle wait before anything loads numpy

if TYPE_CHECKING:
    import gradio as gr


def build_app() -> gr.Blocks:
    """Stores, first start (local store), the site's suite (LEADERBOARD_SUITE: a name or an
    id; SystemExit naming the published suites when it is neither), the embedded worker,
    the table, the UI."""
    # Imported here, not above: the site's validation process (leaderboard/checking.py) is
    # spawned, and a spawned process imports this file; it needs none of these.
    from worker.loop import start_in_process, wake
    from leaderboard.source import TableSource
    from leaderboard.ui import build_ui
    from space_config.settings import get_settings
    from submissions.errors import NotFoundError, TransientStoreError
    from submissions.stores import open_stores
    from submissions.suites import resolve_suite_id
    from worker.suites import first_start

    settings = get_settings()
    stores = open_stores(settings)
    if settings.store == "local":
        first_start(stores)
    try:  # a site whose LEADERBOARD_SUITE names no published suite would refuse every submission
        resolve_suite_id(stores, settings)
    except NotFoundError as e:
        raise SystemExit(f"The site cannot start: {e}") from None
    except TransientStoreError as e:  # the Hub busy now: start anyway; the Submit tab says so if it lasts
        logging.getLogger(__name__).warning("could not check LEADERBOARD_SUITE at start: %s", e)
    scheduler = start_in_process(stores, settings) if settings.embedded_worker else None
    source = TableSource(stores, settings)
    demo = build_ui(stores, settings, source, (lambda: wake(scheduler)) if scheduler is not None else None)
    demo.scheduler = scheduler  # whoever launches it can stop the worker
    return demo


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per poll otherwise
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from leaderboard.tabs.common import launch_options

    # Gradio summarises every event it keeps (up to 10,000) after each event, for a monitoring
    # page the site never opens: once every 1,000 events instead (read when the queue is made)
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
    demo = build_app()
    # GRADIO_* are gradio's own variables; gradio would default to 127.0.0.1, a Space needs 0.0.0.0.
    # app_kwargs routes come before gradio's own: the JSON endpoint of the open exports (leaderboard/api.py),
    # the raw outputs (leaderboard/outputs_api.py)
    demo.queue(default_concurrency_limit=8).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")), **launch_options(),
        app_kwargs={"routes": list(getattr(demo, "api_routes", []))})


if __name__ == "__main__":
    main()
