"""Errors the site's own logic raises on purpose, each with a message a visitor can act on."""

from __future__ import annotations


class LeaderboardError(Exception):
    """Base class: an expected refusal with a user-facing message."""


class CompareRefused(LeaderboardError):
    """Two rows that cannot be compared (a paper's row, another suite or judge, no
    per-video data); the message says why and what would make it possible."""
