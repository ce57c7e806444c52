"""The Python examples of docs/api.md run as written (from the repository's root)."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(), re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_api_example_runs(code, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/api.md", "exec"), {"__name__": "docs_example"})  # our own doc, not game input
    assert capsys.readouterr().out.strip()


def test_the_observation_shown_is_the_real_one(monkeypatch):
    import recycle

    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "api.md").read_text()
    shown = re.search(r"```\n(Observation of P0.*?)\n  \.\.\.\n```", text, re.S).group(1)
    s = recycle.load("games/schwimmen.rcy").new_state(seed=3)
    assert repr(s.observation(0)).startswith(shown)
    assert os.path.exists(ROOT / "docs" / "players.md")


# -- the README and the docs stand on their own (a fresh clone has nothing beside it) ------------

README = ROOT / "README.md"
DOCS = [README] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"(?<!\\)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where brackets are not links."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings (lower case, punctuation dropped,
    spaces to hyphens, a repeated heading numbered)."""
    seen: dict[str, int] = {}
    out = set()
    for line in re.sub(r"^(```|~~~).*?^\1", "", path.read_text(), flags=re.S | re.M).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(path: Path) -> list[str]:
    return LINK.findall(_prose(path.read_text()))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_relative_link_resolves_inside_the_repository(doc):
    bad = []
    for target in _links(doc):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        if not dest.is_relative_to(ROOT) or not dest.exists():
            bad.append(f"{target}: no such file in the repository")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not bad, f"{doc.relative_to(ROOT)}: " + "; ".join(bad)


def test_the_link_check_sees_links_and_anchors():
    assert "docs/reference.md" in _links(README)
    assert "limits" in _anchors(ROOT / "docs" / "reference.md")
    assert "where-recycle-differs-from-cardstock-and-why" in _anchors(ROOT / "docs" / "reference.md")


def test_no_doc_points_outside_the_repository_for_the_language():
    for doc in DOCS:
        assert "RECYCLE.md" not in doc.read_text(), doc.name


def test_the_readme_is_a_short_users_page_with_its_quick_start():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "\nbash setup.sh " in quick and "\n.venv/bin/python -m pytest -q " in quick
    assert text.index("## Quick start") < text.index("## Play a game yourself")
    security = text.split("## Security\n", 1)[1].split("\n## ", 1)[0]
    assert "untrusted" in security and "[docs/security.md](docs/security.md)" in security


def test_the_readme_marks_the_corpus_commands_and_says_where_the_corpus_comes_from():
    text = README.read_text()
    corpus = text.split("## The CardStock corpus", 1)[1].split("\n## ", 1)[0]
    assert "github.com/mgoadric/cardstock" in corpus and "need the corpus" in corpus
    outside = text.replace(corpus, "")
    assert "cardstock/" not in re.sub(r"\(https://github.com/mgoadric/cardstock\)", "", outside)


def _tool(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"tool_{name}", ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_conformance_says_where_the_corpus_comes_from(tmp_path, capsys):
    assert _tool("conformance").main([str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "github.com/mgoadric/cardstock" in err


# -- the language reference ----------------------------------------------------------------

REFERENCE = ROOT / "docs" / "reference.md"


def test_the_reference_form_tables_are_generated_from_the_registry():
    text = REFERENCE.read_text()
    assert text == _tool("forms_doc").fill_reference(text), (
        "docs/reference.md's form tables are stale: run  python tools/forms_doc.py --reference"
    )


def test_the_reference_has_every_registered_form():
    from recycle.lang.forms.flow import REGISTRY
    from recycle.lang.forms.registry import Kind

    text = REFERENCE.read_text()
    blocks = re.findall(r"<!-- forms: ([a-z ]+) -->", text)
    assert sorted(k for b in blocks for k in b.split()) == sorted(Kind.ALL)
    for f in REGISTRY.forms:
        for alternative in f.syntax.split(" | "):
            assert f"`{alternative.replace('|', chr(92) + '|')}`" in text, f"{f.name}: {alternative}"
        if f.head is not None:  # a form read by its shape (a conditional, an index) has no head
            assert re.search(rf"[`(]{re.escape(f.head)}[ `)]", text), f.head


def test_the_reference_example_game_plays():
    import recycle

    source = re.search(r"```lisp\n(.*?)```", REFERENCE.read_text(), re.S).group(1)
    g = recycle.loads(source, "draw21.rcy")
    assert g.play(seed=1).winners


def test_the_verbatim_schwimmens_scoring_slip_is_told_where_it_is_used():
    """Issue 40.11: games/schwimmen.rcy, kept verbatim, scores some hands below the rule (a
    plain suit sum compared with a doubled score); the README and docs/games.md say so and
    point to schwimmen-lives.rcy."""
    game = (ROOT / "games" / "schwimmen.rcy").read_text()
    assert "((> 'RS ((current player) sto SCORE))\n      (set ((current player) sto SCORE) (* 2 'RS))" in game
    for doc in (README, ROOT / "docs" / "games.md"):
        text = " ".join(doc.read_text().split())
        assert "Q♥ A♦ Q♣ scores 20" in text and "the rule gives 22" in text, doc
        note = text[text.index("Q♥ A♦ Q♣ scores 20") - 800 : text.index("Q♥ A♦ Q♣ scores 20") + 800]
        assert "games/schwimmen-lives.rcy" in note, doc


def test_the_verbatim_schwimmen_scores_57_of_200_dealt_hands_below_the_rule():
    """The figure docs/games.md gives: the file's own scoring stage on the hands of deals 0-39."""
    import recycle

    text = (ROOT / "games" / "schwimmen.rcy").read_text()
    scoring = text[text.index(" ;; calculate the scores") : text.index(" (scoring max")]
    scoring = scoring.replace(
        "(repeat all (move (top ((current player) iloc HAND))\n                     (top (game vloc DISCARD))))",
        "(inc (game sto SCORED))",
    )
    scoring = scoring.replace(
        "(end (all player 'P (== (size ('P iloc HAND)) 0)))", "(end (== (game sto SCORED) 'NUMP))"
    )
    g = recycle.loads(
        text[: text.index(" ;; dealer can swap")] + scoring + " (scoring max ((current player) sto SCORE)))",
        "scored.rcy",
    )
    value = {"A": 11, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 9, "8": 8, "7": 7}
    below = []
    for seed in range(40):
        r = g.play(seed=seed)
        for p in range(5):
            info = next(i for i in g.layout.infos if i.label == f"HAND(P{p})")
            # (card names may be in ASCII when a test before switched them: 9S)
            hand = [
                n[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(n[-1], n[-1])
                for n in map(g.card_name, r.state.locs[info.index])
            ]
            ranks, suits = [c[:-1] for c in hand], [c[-1] for c in hand]
            rule = 2 * max(sum(value[k] for k, s in zip(ranks, suits) if s == suit) for suit in suits)
            if len(set(ranks)) == 1:
                rule = 64 if ranks[0] == "A" else 61
            if r.scores[p] < rule:
                below.append((hand, r.scores[p], rule))
    assert len(below) == 57 and (["9♠", "A♦", "7♦"], 18, 36) in below
