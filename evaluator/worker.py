"""`python -m evaluator.worker`: the worker's command, by the name maintainers and jobs use. The
worker itself is the top-level package worker/ (claim, run, publish apart); this entry
point only runs its main (worker/main.py), and keeps the names the site imports from here.
Its layer is the top one (tests/test_import_layers.py): an entry point, like the CLIs."""

from worker.loop import Worker, start_in_process, wake  # noqa: F401 - kept importable from here
from worker.main import exit_now, main, parser  # noqa: F401

if __name__ == "__main__":
    exit_now(main())
