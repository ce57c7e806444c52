"""What the studio's tests share: a folder of games, a running server, a browser."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-0123456789abcdef"
HOSTILE = "<img src=x onerror=alert(1)>.rcy"


def game_folder(tmp: Path) -> Path:
    """A folder with Crazy Eights, War and a game whose file name is HTML."""
    folder = tmp / "served"
    folder.mkdir()
    for name in ("crazy-eights.rcy", "war.rcy"):
        shutil.copy(ROOT / "games" / name, folder / name)
    shutil.copy(ROOT / "games" / "war.rcy", folder / HOSTILE)
    return folder


def chromium_path() -> str:
    """The system's Chromium (Playwright's own download is not used): $RECYCLE_CHROMIUM or
    the first of chromium, chromium-browser, google-chrome on the PATH. In CI a missing
    browser fails the test with the way to install it; elsewhere the test is skipped."""
    found = os.environ.get("RECYCLE_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
    )
    if found is None:
        message = (
            "the studio's browser tests need Chromium: apt-get install chromium (setup.sh installs it), "
            "or set RECYCLE_CHROMIUM to a Chromium binary"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def seen_by(table, seat: int) -> set[int]:
    """Every card that was, at some moment of the table's game, in a place ``seat`` may see."""
    from recycle.lang.forms.values import may_see

    s = table.state
    layout = table.game.layout
    seen = set()
    for ev in table.events:
        for loc in (getattr(ev, "src", None), getattr(ev, "dst", None)):
            if loc is not None and may_see(layout.info(loc), seat, s.team_of):
                seen.add(ev.card)
    return seen
