"""The evaluation worker: takes submissions from the queue, scores them, publishes
the results.

    python -m evaluator.worker            # poll the queue every LEADERBOARD_POLL_SECONDS, forever
    python -m evaluator.worker --once     # work until nothing is pending or running, then exit
    python -m evaluator.worker --dispatch hf-jobs   # run each request as a Hugging Face Job (worker/dispatch.py)

(`python -m worker` is the same command; evaluator/worker.py keeps the command users already type.)

Modules: job.py (a claimed request: lease heartbeat, progress, time limit), run.py (the
Evaluator: fetch, run, score), publish.py (the Publisher: stage, finish, publish;
publish_pending), joblog.py (the private log), loop.py (the Worker: claim loop, one job,
scheduling; its command line is cli/worker.py),
dispatch.py + dispatch_rules.py (the Hugging Face Jobs dispatcher), suites.py (publishing
suites and scoring the baselines at first start), errors.py.

One job, as `Worker.run_once` (loop.py) runs it:

    claim      the next PENDING request (priority, then oldest), holding a lease
    heartbeat  a thread renews the lease every lease/3 s; it stops the job when the lease
               is lost (cancelled, or expired and taken by another worker) and fails it
               with reason "timeout" once it runs past LEADERBOARD_JOB_TIMEOUT
    fetch      the suite and its answer key (suite and answers stores), the uploaded
               prediction file (private store)
    run        model-ID requests only: load the model (evaluator.runners.get_runner) and
               answer every call, the answer key's hidden calls included, recording
               progress after each batch (and a blind pass: runners/blind.py); the model is released before scoring
    score      benchmark by benchmark, recording progress (calls done / total)
    publish    the result staged in the private store (with a model run's raw outputs,
               outputs/<h>/<h>/<id>.jsonl: evaluator/raw_outputs.py), then FINISHED, then the
               public result file <h>/<h>/<id>.json and its row in the one aggregated table
               (leaderboard.parquet) and the suite's open exports in one step
               (results/exports.py); see `Publisher.publish` for why in
               this order. The log (private: logs/<h>/<h>/<id>.log) is appended as the job
               runs, at every lease renewal, so a killed job keeps its lines.
    fail       FAILED with a reason code and a message the submitter can read:
               bad_predictions (the file's problems, by line), download (also a model or
               revision that cannot be found), out_of_memory,
               timeout, internal (anything unexpected: a generic message; the traceback
               goes to the private log only)

A worker that dies mid-job (killed, machine reclaimed) simply stops renewing: when its
lease runs out the next claim sends the request back to PENDING (attempt + 1) and
another worker runs it from the start. If staging the result or finishing fails even
after the store's retries, the worker does the same on purpose: it leaves the request
RUNNING and stops renewing, so the submission is retried later rather than failed for
our fault. If only the last step (making it public) fails, the request is FINISHED
and the next worker's `publish_pending` publishes it.

Failure drills: LEADERBOARD_WORKER_HOLD_SECONDS > 0 makes the worker pause after each
claim (lease still renewed), which gives a test or an operator a job to kill;
LEADERBOARD_WORKER_HOLD_PUBLISH_SECONDS pauses between FINISHED and publishing.
"""
