"""A real browser for the tests: Debian's Chromium driven by selenium through
``/usr/bin/chromedriver``.

Import what a test needs, ``from tests.browser import chrome, phone, shot``; the fixture
:func:`chrome` gives each test its own headless Chromium and quits it after. A machine without
selenium, ``/usr/bin/chromium`` or ``/usr/bin/chromedriver`` skips the test with one line
saying why (``-ra`` in the addopts prints it). Selenium Manager is never used: it would fetch
a driver from the network; the driver is always the one Debian installed.

Helpers: :func:`phone` and :func:`desktop` set the page's size (a phone is emulated through
the DevTools protocol: headless Chromium's window is never narrower than 500 px),
:func:`shot` keeps a screenshot under the test's temporary folder for a person to look at,
:func:`offline` blocks every network request (a ``file://`` page still loads).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
MISSING = ("browser tests skipped: chromium and chromium-driver are not installed "
           "(apt-get install chromium chromium-driver)")
NO_SELENIUM = "browser tests skipped: selenium is not installed (pip install -e '.[test]')"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("selenium") is None:
        return NO_SELENIUM
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        return MISSING
    return None


def start_chrome() -> Any:
    """A new headless Chromium under Debian's chromedriver (skips when there is none)."""
    why = browser_missing()
    if why is not None:
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1920,1080", "--lang=en-US"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


@pytest.fixture
def chrome() -> Iterator[Any]:
    """One headless Chromium for this test, quit after it."""
    driver = start_chrome()
    try:
        yield driver
    finally:
        driver.quit()


def _size(driver: Any, width: int, height: int, mobile: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile})


def phone(driver: Any) -> None:
    """Show pages as a 360x740 phone does (mobile viewport, twice the pixels)."""
    _size(driver, 360, 740, True)


def desktop(driver: Any) -> None:
    """Show pages on a 1920x1080 screen."""
    _size(driver, 1920, 1080, False)


def shot(driver: Any, tmp_path: Path, name: str) -> Path:
    """Save a screenshot of the page as ``tmp_path/shots/NAME.png`` and return its path."""
    folder = tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name if name.endswith(".png") else name + ".png")
    driver.save_screenshot(str(path))
    return path


def offline(driver: Any) -> None:
    """Block every network request from now on (``file://`` pages still load)."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*"]})
