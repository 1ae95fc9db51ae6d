"""Runs every rule scenario in ``specs/rules/`` (one test per file)."""

from pathlib import Path

import pytest

from tests.scenario import run_scenario

SCENARIOS = sorted((Path(__file__).parent.parent / "specs" / "rules").glob("*.toml"))


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 80


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    run_scenario(path)
