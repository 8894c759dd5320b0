"""The site's tabs, one module each (layout, wiring and its callbacks); leaderboard/ui.py assembles them.

common.py and base.py are what they share; no tab imports leaderboard/ui.py."""
