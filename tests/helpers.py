"""Helpers that test files of several folders share (conftest.py holds the fixtures and paths)."""

from __future__ import annotations

import importlib.util

from recycle.engine.game import loads

from .conftest import ROOT

# A two-player blackjack whose stock is face down: what a player may not read (the next card).
BLACKJACK = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (SUIT (S, H)) (RANK (A, K, NINE, EIGHT, SEVEN, SIX, FIVE, FOUR, THREE, TWO)))))
 (do (
  (shuffle (game iloc STOCK))
  (set (game points VAL) (((RANK : A) 11) ((RANK : K) 10) ((RANK : NINE) 9) ((RANK : EIGHT) 8)
    ((RANK : SEVEN) 7) ((RANK : SIX) 6) ((RANK : FIVE) 5) ((RANK : FOUR) 4) ((RANK : THREE) 3) ((RANK : TWO) 2)))
  (move (top (game iloc STOCK)) (top ((current player) vloc HAND)))
  (cycle current (next player))
  (move (top (game iloc STOCK)) (top ((current player) vloc HAND)))
  (cycle current (next player))))
 (stage player (end (all player 'P (> ('P sto DONE) 0)))
  (choice (
   ((and (== ((current player) sto DONE) 0) (> (size (game iloc STOCK)) 0))
    (do (
     (move (top (game iloc STOCK)) (top ((current player) vloc HAND)))
     (set ((current player) sto TOTAL) (sum ((current player) vloc HAND) using (game points VAL))))))
   (set ((current player) sto DONE) 1))))
 (scoring max ((current player) sto TOTAL)))"""


# ;@ notes (tests/lang/test_structured_comments.py, tests/cli/test_play_screen.py): two players,
# two cards each; in turn each lays a card on the pile: P0's second turn has
# one card left, so one option (forced)
LAY = """;@ hide: TURNS
;@ label: LAID "cards laid"
(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B)) (SUIT (X, Y)))))
 (do ((all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player
  (end (all player 'P (== (size ('P iloc HAND)) 0)))
  (choice (
   ;@ name: lay
   (any ((current player) iloc HAND) 'C
    (do ((move 'C (top (game vloc PILE)))
         (inc ((current player) sto LAID))
         (inc (game sto TURNS))))))))
 (scoring max 0))
"""


def blackjack():
    """The blackjack above, loaded (tests of no peeking: the players' and the studio's table)."""
    return loads(BLACKJACK, "blackjack.rcy")


def fuzz_tool():
    """tools/fuzz.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("tool_fuzz", ROOT / "tools" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    return fuzz


# The peak memory of the process that runs this line, in MB. ``ru_maxrss`` is kept across
# ``execve`` on Linux, so a child forked from a large pytest process reports pytest's size;
# the address space's own high-water mark (VmHWM) starts afresh at ``exec``.
PEAK_MB = (
    "(lambda s: int(s.split('VmHWM:')[1].split()[0]) // 1024 if 'VmHWM:' in s else "
    "__import__('resource').getrusage(__import__('resource').RUSAGE_SELF).ru_maxrss // 1024)"
    "(open('/proc/self/status').read())"
)
