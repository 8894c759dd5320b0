"""Deployment settings and Space cards. Settings are read lazily: see settings.py."""

from space_config.settings import Settings, get_settings

__all__ = ["Settings", "get_settings"]
