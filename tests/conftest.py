"""Shared helpers: tiny games from text, the shared corpus (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

import recycle

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "cardstock"
NATIVE = SHARED / "bench" / "schwimmen_native.py"


def tiny(body: str, players: int = 2, deck: str = "(deck (RANK (A, B, C)) (SUIT (X, Y)))",
         scoring: str = "(scoring max 0)", declare: str = "") -> recycle.PreparedGame:
    """A game with a 6-card deck in (game iloc STOCK) and the given flow."""
    text = f"""(game {declare}
 (setup (create players {players})
  (create deck (game iloc STOCK) {deck}))
 {body}
 {scoring})"""
    return recycle.loads(text, "tiny.rcy")


def requires_corpus():
    return pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus folder {CORPUS} is absent")


class ConservationCheck(list):
    """An event sink that checks, after every card movement, that no card is lost or doubled."""

    def attach(self, state):
        self.state = state
        self.checked = 0

    def append(self, ev):
        super().append(ev)
        check_conservation(self.state)
        self.checked += 1


def check_conservation(s) -> None:
    from recycle.lang.values import MEMORY

    infos = s.game.layout.infos
    seen = {}
    for i, lst in enumerate(s.locs):
        if infos[i].visibility == MEMORY:
            continue
        for c in lst:
            assert c not in seen, f"card {c} is in two locations"
            seen[c] = i
    assert len(seen) == len(s.card_loc), f"{len(s.card_loc) - len(seen)} cards lost"
    for c, i in seen.items():
        assert s.card_loc[c] == i, f"card {c} believed in {s.card_loc[c]} but is in {i}"
