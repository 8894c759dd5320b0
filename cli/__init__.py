"""The command lines, above every package they drive: the evaluator's and maintainers' commands
(evaluator.py with queue.py, deploy.py, eval_results.py; `python -m evaluator ...`) and the
worker's (worker.py; `python -m evaluator.worker`). The names users type forward here."""
