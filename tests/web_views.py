"""The page's side of the view protocol, in Python, for tests that read the socket as the page
does: a ``view`` message is the whole view, a ``patch`` the parts that changed since the last
message (``cli/web/server.py``); :func:`take` applies either as ``cli/web/static/table.js``'s
``apply`` does, so a test sees the view the page holds."""

from __future__ import annotations

import copy
import json
from typing import Any


def take(view: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The view after ``message``, from ``view`` (the one held before; None for none yet)."""
    if message["type"] == "view":
        return copy.deepcopy(message["view"])
    assert message["type"] == "patch", message
    assert view is not None, "a patch came before any view"
    view = copy.deepcopy(view)
    view.update(message.get("set", {}))
    for path, value in message.get("ops", []):
        holder = view
        for step in path[:-1]:
            holder = holder[step]
        holder[path[-1]] = value
    if "v" in message:
        view["v"] = message["v"]
    log = message.get("log")
    if log is not None:
        if "lines" in log:
            view["log"] = log["lines"]
        else:
            lines = view.get("log", []) + log["add"]
            view["log"] = lines[max(0, log["start"] - view.get("log_start", 0)):]
        view["log_start"] = log["start"]
    return view


class Follower:
    """The views of one socket, as the page holds them, message by message."""

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None
        self.messages: list[dict[str, Any]] = []

    def heard(self, text: str) -> dict[str, Any]:
        """Take one message (its text as sent); the view after it."""
        message = json.loads(text)
        self.messages.append(message)
        self.view = take(self.view, message)
        return self.view
