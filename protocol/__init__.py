"""The peer: discovery, transport, relay and persistence (drives the core; holds no rules)."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """p2p10's data folder: ``$XDG_DATA_HOME/p2p10`` (``~/.local/share/p2p10`` by default), which
    holds the saved games (``games/``) and the player's record (``record.json``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "p2p10"


def config_home() -> Path:
    """p2p10's settings folder: ``$XDG_CONFIG_HOME/p2p10`` (``~/.config/p2p10`` by default), which
    holds the start screen's last settings (``settings.json``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "p2p10"
