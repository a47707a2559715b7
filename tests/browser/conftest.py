"""Chromium for the Browser tests, found as the Makefile's `browser` target finds it: the
`chromium` on PATH (`command -v chromium`; Debian's package, which that target installs)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def chromium() -> Path:
    found = shutil.which("chromium")
    if found is None:
        pytest.skip("no chromium on PATH: `make browser` installs Debian's package "
                    "(apt-get install -y chromium)")
    return Path(found)


@pytest.fixture(scope="module")
def playwright(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p
