"""Suite-wide hooks."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

LIVENESS = "tests/test_lan_liveness.py"

# The tests read the program's English, whatever the developer's locale: LANGUAGE comes first of
# the variables p2p10.i18n reads, here and in every process the tests start. The tests of the
# translations set their own.
os.environ["LANGUAGE"] = "en"
# p2p10 play remembers its last settings in $XDG_CONFIG_HOME/p2p10: never the developer's own.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="p2p10-test-config-")
# Nor its data folder: a resume keeps this machine's checkpoint key there (protocol.checkpoint).
# A test that lists or saves games sets its own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="p2p10-test-data-")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (marked ``slow``) first, each file's in its own order: on two processes
    a minute-long test picked up last leaves the other process idle at the end of the run,
    while the many short tests left for last even the two out."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the liveness trial (minutes of real time, nearly all of it waiting) as soon as the
    tests are known, so that it runs beside the rest of the suite rather than after it."""
    if session.config.option.collectonly:
        return
    if any(item.nodeid.startswith(LIVENESS) for item in session.items):
        from tests.test_lan_liveness import start_trial

        start_trial()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """However the run ends (a failure with -x, Ctrl-C), the trial's processes go with it."""
    module = sys.modules.get("tests.test_lan_liveness")
    if module is not None and module.TRIAL is not None:
        module.TRIAL.close()
