"""The Study view in a real browser (Playwright driving the system's Chromium, headless): a
game's page is built, its figures show in the studio, and the page opens in a tab of its own
with its style and its figures, served by the studio (no network, no script); the balance
ladder and the balance run and their reports show.

RECYCLE_STUDIO_SHOTS=DIR saves screenshots of the screens there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from recycle.studio import Server, make_app  # noqa: E402

from .helpers import TOKEN, chromium_path, game_folder  # noqa: E402

SHOTS = os.environ.get("RECYCLE_STUDIO_SHOTS")
WAIT = 90_000  # ms: a page plays look-ahead games, and a shared machine can be slow


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = game_folder(tmp_path_factory.mktemp("study"))
    app = make_app(folder, TOKEN)
    server = Server(app, port=0).start()
    yield folder, server
    server.stop()


@pytest.fixture
def context():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox"])
        ctx = b.new_context(viewport={"width": 1280, "height": 900})
        yield ctx
        ctx.close()
        b.close()


def shot(pg, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(SHOTS) / f"studio-{name}.png"), full_page=True)


def loaded_images(pg, selector: str) -> list[int]:
    return pg.eval_on_selector_all(selector, "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")


@pytest.mark.slow  # (over 4 s: the fast suite stays under 5 minutes on 2 cores)
def test_the_study_view_builds_and_opens_a_page(context, studio):
    _, server = studio
    pg = context.new_page()
    pg.goto(server.url(f"/?token={TOKEN}&open=crazy-eights.rcy"))
    pg.wait_for_selector("#check-state:has-text('checks:')", timeout=WAIT)
    pg.click("button[data-tab=study]")
    pg.fill("#page-n", "3")
    pg.fill("#page-players", "ismcts:5")
    pg.click("#page-go")
    pg.wait_for_selector("#page-open:not(.hidden)", timeout=WAIT)
    # each figure loaded (read as a property: the studio's policy allows no evaluated script)
    images = pg.locator("#page-view img")
    for i in range(images.count()):
        sync_api.expect(images.nth(i)).to_have_js_property("complete", True, timeout=WAIT)
    widths = loaded_images(pg, "#page-view img")
    assert all(w > 0 for w in widths), widths
    # the same page as `recycle page`, in its order: the Valet figures, then the later sections
    names = pg.eval_on_selector_all("#page-view img", "imgs => imgs.map(i => i.alt)")
    assert [n for n in names if n != "flow.svg"] == [
        "branching.png",
        "spread.png",
        "lead.png",
        "ladder.png",
        "luck.png",
        "suspense.png",
    ], names
    state = pg.inner_text("#page-state").splitlines()
    assert state[0] == "page of crazy-eights: 3 random games, 3 games of ismcts:5", state
    assert state[1].startswith("skill ladder: 3 rungs (random, ismcts:10, ismcts:20), skill depth "), state
    assert [line.split(" ")[0] for line in state[2:]] == ["luck", "suspense", "heuristics:"], state
    shot(pg, "study-page")

    with context.expect_page() as opened:
        pg.click("#page-open")
    page = opened.value
    page.wait_for_load_state()
    assert "crazy-eights" in page.inner_text("h1")
    page.wait_for_function("[...document.images].every(i => i.complete)", timeout=WAIT)
    assert all(w > 0 for w in loaded_images(page, "img"))  # its figures, by its relative links
    # its own inline style applies (the page's policy allows it) and no script runs
    assert page.evaluate("getComputedStyle(document.body).maxWidth") != "none"
    assert page.evaluate("document.scripts.length") == 0
    shot(page, "study-page-opened")

    pg.fill("#ladder-players", "random,ismcts:4")
    pg.fill("#ladder-doublings", "1")
    pg.fill("#ladder-n", "2")
    pg.click("#ladder-go")
    pg.wait_for_selector("#ladder-lines:has-text('skill depth:')", timeout=WAIT)
    assert pg.inner_text("#ladder-lines").startswith("skill ladder of crazy-eights: 3 rungs")

    pg.fill("#balance-vary", "PENALTY.EIGHT=10..50:10")
    pg.fill("#balance-target", "score_gap=0..20")
    pg.fill("#balance-iterations", "3")
    pg.fill("#balance-n", "4")
    pg.click("#balance-go")
    pg.wait_for_selector("#balance-lines:has-text('original: PENALTY.EIGHT=50')", timeout=WAIT)
    assert pg.inner_text("#balance-state") == "balance done"
    pg.locator("#balance-lines").scroll_into_view_if_needed()
    shot(pg, "study-balance")
