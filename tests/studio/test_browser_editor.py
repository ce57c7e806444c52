"""The studio's editor in a real browser (headless Chromium, as test_browser.py): the
registry's words coloured (``scoremin``, ``using``), counts of one singular, the structure
tree naming a place held by a variable, and a person's run started right after the page's
own lints (issue 40.3: those once filled both run slots).

RECYCLE_STUDIO_SHOTS=DIR saves a screenshot of the editor and of the tree there."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from recycle.studio import Server, make_app  # noqa: E402

from .helpers import TOKEN, game_folder  # noqa: E402
from .test_browser import WAIT, browser, page, shot  # noqa: F401, E402 - the browser's fixtures
from .test_editor import PILES  # noqa: E402

# scoremin and using in its stage's end and its scoring
SCORED = PILES.replace(
    "(scoring max (size ((current player) vloc LEFT))))",
    "(scoring max (sum ((current player) vloc LEFT) using (game points P))))",
).replace(
    "  (end (== (size (game iloc STOCK)) 0))",
    "  (end (or (== (size (game iloc STOCK)) 0)\n"
    "           (and (> (size (game vloc LEFT)) 0) (< (scoremin (game vloc LEFT) using (game points P)) 0))))",
)


@pytest.fixture
def studio(tmp_path):
    folder = game_folder(tmp_path)
    (folder / "piles.rcy").write_text(SCORED)
    # War with one warning: a location nothing fills
    war = (folder / "war.rcy").read_text()
    (folder / "war-typo.rcy").write_text(war.replace("(shuffle (game hloc SPOILS))", "(shuffle (game hloc SPOIL))", 1))
    app = make_app(folder, TOKEN)
    server = Server(app, port=0).start()
    yield folder, server
    server.stop()


def test_studio_editor_colours_the_registrys_words_and_draws_the_tree(page, studio):  # noqa: F811
    _, server = studio
    page.goto(server.url(f"/?token={TOKEN}"))  # the page opens the first game and lints it
    page.click("#games a[data-path='piles.rcy']")  # and the person picks another at once
    page.wait_for_selector("#check-state:has-text('checks: piles')", timeout=WAIT)
    kinds = page.evaluate("""() => Object.fromEntries(['scoremin', 'using', 'vloc', 'choice'].map(w =>
        [w, [...document.querySelectorAll('#highlight span')].filter(s => s.textContent === w)
            .map(s => s.className)[0]]))""")
    assert kinds == {"scoremin": "t-kw", "using": "t-kw", "vloc": "t-loc", "choice": "t-kw"}
    page.wait_for_selector("#simlint-state:has-text('random games:')", timeout=WAIT)
    shot(page, "editor-words")
    # the person's run starts: the page's two lints did not take its slots
    page.click("button[data-tab=run]")
    page.fill("#run-n", "20")
    page.click("#run-go")
    page.wait_for_function(
        "() => /done|failed|runs are going/.test(document.querySelector('#run-state').textContent)", timeout=WAIT
    )
    assert page.inner_text("#run-state").startswith("simulate done"), page.inner_text("#run-state")
    page.click("#tree-go")
    page.wait_for_selector("#tree-lines:has-text('vloc')", timeout=WAIT)
    tree = page.inner_text("#tree-lines")
    assert "move top STOCK → top vloc 'S" in tree and "→ top 'S" not in tree
    shot(page, "tree", full=True)
    page.click("#games a[data-path='war-typo.rcy']")
    page.wait_for_selector("#check-state:has-text('checks: war-typo')", timeout=WAIT)
    assert page.inner_text("#check-state").endswith(", 1 warning")
    assert page.inner_text("#problem-count") == "(0 errors, 1 warning)"
