"""What the site shows of CausalStep: its tab's metrics, "By level" columns and
breakdown views, as data (evaluator/benchmarks/hooks.py; leaderboard/views/columns.py
reads them)."""

from evaluator.benchmarks.hooks import LevelColumn, View

# its `overall` in words, for the suite's dataset card and eval.yaml
HEADLINE = "the weighted score of its stepwise chains over that of perfect chains (ws_norm)"
COLUMN_WIDTH = 112  # pixels of its leaderboard column: its one-word title must not break
DISPLAY_METRICS = ("overall", "csr", "amcl", "mcl", "rf", "ws", "dua", "icra")
METRIC_LABELS = {"csr": "CSR", "amcl": "AMCL", "mcl": "MCL", "rf": "RF", "ws": "WS", "dua": "DUA", "icra": "ICRA",
                 "ws_norm": "WS norm"}
LEVEL_COLUMNS = (LevelColumn("dua", "CausalStep Descriptive (DUA)", 30),
                 LevelColumn("icra", "CausalStep Causal (ICRA)", 30))
VIEWS = (
    View("causalstep-category", "domain", "CausalStep: categories", "by_category", "ws_norm", order=40),
    View("causalstep-chain", "hop", "CausalStep: accuracy by chain position", "by_chain_position", None,
         "position {}", order=20),
)
