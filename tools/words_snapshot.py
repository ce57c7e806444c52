"""Write every game's words to a file, to compare two versions of recycle: the structure outline
(``recycle tree``) of every game of games/, ../shared/corpus and the tests, then every node of
each game (but blocks and declarations) written by ``expr``/``action_text``. Run from the
repository's root of each version and compare the files:

    python tools/words_snapshot.py /tmp/before.txt     # on one version
    python tools/words_snapshot.py /tmp/after.txt      # on the other
    cmp /tmp/before.txt /tmp/after.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

import recycle
from recycle.lang.forms.wording import action_text, expr
from recycle.lang.nodes import elaborate
from recycle.lang.nodes.base import Kind
from recycle.lang.nodes.flow import Declare
from recycle.lang.nodes.walk import walk
from recycle.study.structure import game_tree, outline

ROOT = Path.cwd()  # the version of recycle whose words are written


def games() -> list[Path]:
    """The games of games/, the shared corpus and the tests, in a fixed order."""
    corpus = ROOT.parent / "shared" / "corpus"
    return sorted((ROOT / "games").glob("*.rcy")) + sorted(corpus.glob("*/*.rcy")) + sorted(ROOT.glob("tests/**/*.rcy"))


def snapshot(path: Path) -> list[str]:
    """One game's structure outline and its nodes' words, a line each."""
    try:
        g = recycle.load(path, engine="reference")
    except recycle.RecycleError as exc:
        return [f"error: {exc}"]
    lines = outline(game_tree(g.source))
    game = elaborate(g.source)
    for n in walk(game):
        if n is game or isinstance(n, Declare) or getattr(n, "KIND", "") == Kind.FLOW:
            continue  # blocks are drawn by the tree, not written
        words = action_text(n) if getattr(n, "KIND", "") == Kind.ACTION else expr(n)
        lines.append(f"{type(n).__name__}: {words}")
    return lines


def write_all(out: str, snapshot_of) -> None:
    """Write ``snapshot_of(path)`` of every game to ``out``, each under a ``== GAME`` line
    (``options_snapshot.py`` writes its snapshots with it too)."""
    lines = []
    for path in games():
        lines.append(f"== {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}")
        lines += snapshot_of(path)
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(games())} games, {len(lines)} lines: {out}")


if __name__ == "__main__":
    write_all(sys.argv[1], snapshot)
