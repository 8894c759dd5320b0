"""The aggregated table shaped for the site's tabs: pure pandas, no gradio.

Three steps, each a small function the tests call directly:

    board = select_suite(table, suite_id)   # one suite's rows (+ the papers' rows for an official suite)
    board = prepare(board)                  # derived columns (badge, type, size...), sorted and ranked
    shown = leaderboard_view(filter_rows(board, Filters(search="qwen")), columns=DEFAULT_COLUMNS)

and the other views read the same prepared board:

    benchmark_view(board, "expvid")             every scalar metric of one benchmark
    by_level_view(board)                        ExpVid L1-L3, Video-MMMU tracks, CausalStep desc. vs causal
    breakdown_view(board, "exact-domain")       a JSON breakdown column expanded to one column per group
    level_profile(board, ids), score_vs_params(board, "average")     data for the plots
    level_profile_spec(frame), score_vs_params_spec(frame)           the Vega-Lite specs that draw them
    queue_view(requests), my_submissions(requests, user), my_log(...)   the Queue tab

Breakdown buckets published without a score (results/disclosure.py) stay missing
(NaN) in these frames, so every column still sorts as numbers; `frame.attrs["hidden"]`
says which cells they are ({column: {row position: item count}}) and `shown_text`
gives the "n too small (n=...)" text the site puts in their place. Every number a view
shows is written by one rule (results/number_format.py: scores "52.80", counts "120"):
`display_text` gives each cell's text from the kinds a view notes in `frame.attrs["kinds"]`.
A score that counts calls a row left unanswered reads "41.20 ◐" (`mark_partial`), and
`partial_note(frame)` is the line that explains it, "" where no cell carries the mark.

`table` is `results.aggregate.load_table`'s frame (columns documented there);
paper-reported rows come from `leaderboard.reported.reported_rows`. Display column
names (RANK, MODEL, ...) are constants here: the UI and the browser tests use them.

One module per concern, bottom to top: columns (names, metrics, breakdown definitions,
column helpers), display (the cells' shown text), suites, board (prepare: derived columns,
ranks), table (filters and the Leaderboard's view), breakdowns (per benchmark, by level /
domain / hop, hidden buckets), plots, queue. This package re-exports their public names, so `from leaderboard import
views` and `views.X` is the one way the site and the tests use them (and what a test
patches: the site looks names up here, e.g. `views.leaderboard_view`).
"""

from leaderboard.views.board import *  # noqa: F401,F403
from leaderboard.views.breakdowns import *  # noqa: F401,F403
from leaderboard.views.columns import *  # noqa: F401,F403
from leaderboard.views.display import *  # noqa: F401,F403
from leaderboard.views.plots import *  # noqa: F401,F403
from leaderboard.views.queue import *  # noqa: F401,F403
from leaderboard.views.suites import *  # noqa: F401,F403
from leaderboard.views.table import *  # noqa: F401,F403
