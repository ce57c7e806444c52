"""A hint's figures say how much they rest on (issue 40.6): a chance of winning is shown
with its interval and its tries, a figure from few tries says it is a guess, and an option
the search never tried has no figure, in the terminal and the studio alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from recycle.cli.table import options_lines
from recycle.players.human import FEW_TRIES, Hint, hint

ROOT = Path(__file__).resolve().parents[2]


def test_a_hint_figure_says_its_interval_and_its_tries():
    h = Hint("ismcts:200", 1, [0.0, 0.5, None, 1.0], [3, 100, 0, 40])
    assert h.figures() == [
        "0% (0-56%, only 3 tries: a guess)",
        "50% (40-60%, 100 tries)",
        "not tried",
        "100% (91-100%, 40 tries)",
    ]
    assert [h.few(i) for i in range(4)] == [True, False, True, False]
    assert FEW_TRIES == 30
    assert (
        h.advice("P2's ismcts:200", 2, "follow suit: J♦")
        == "hint from P2's ismcts:200: 2. follow suit: J♦ (estimated chance of winning 50% (40-60%, 100 tries))"
    )


class _Words:
    def __init__(self, text):
        self.text = text

    def describe(self):
        return self.text


def test_the_terminal_shows_the_figures_beside_the_options():
    h = Hint("ismcts:200", 1, [0.0, 0.5], [3, 100])
    lines = options_lines([_Words("lead: 2♣"), _Words("lead: K♠")], h.figures(), best=1)
    assert lines == [
        "  1  0% (0-56%, only 3 tries: a guess)  lead: 2♣",
        "  2  50% (40-60%, 100 tries)            lead: K♠  <- hint",
    ]


@pytest.mark.parametrize("spec", ["ismcts:60", "pimc:60"])
def test_a_hint_counts_the_tries_of_each_option(spec):
    """Both look-ahead kinds report how many playouts each option had; an option with none
    has no chance (PIMC's used to read 0%)."""
    from recycle import load

    game = load(ROOT / "games" / "crazy-eights.rcy")
    for seed in range(40):
        s = game.new_state(seed=seed, track=True)
        while not s.is_terminal() and s.num_options() == 1:
            s.apply(0)
        if not s.is_terminal() and s.num_options() >= 4:
            break
    got = hint(s.observation(s.current_player()), s.legal_options(), spec, seed=1)
    assert len(got.visits) == len(got.chances) == s.num_options()
    assert all(isinstance(n, int) for n in got.visits) and sum(got.visits) > 0
    for c, n, text in zip(got.chances, got.visits, got.figures()):
        assert (c is None) == (n == 0)
        assert text == "not tried" if n == 0 else f"{n} tr" in text


def _first_real_decision(path: Path, seed: int = 3):
    import recycle

    s = recycle.load(path).new_state(seed=seed)
    while s.num_options() == 1:
        s.apply(0)
    return s


@pytest.mark.parametrize("kind", ["ismcts", "pimc", "greedy"])
def test_a_stopped_search_ends_after_the_iteration_under_way(kind):
    """Issue 39.8: a hint no longer wanted (or past its time) stops its search at once and
    decides on what it has; without ``stop`` the search spends its whole budget."""
    s = _first_real_decision(ROOT / "games" / "crazy-eights.rcy")
    asked = []

    def stop():
        asked.append(1)
        return True

    h = hint(s.observation(s.current_player()), s.legal_options(), f"{kind}:5000", seed=1, stop=stop)
    assert 0 <= h.choice < s.num_options()
    assert asked  # the search asked, and ended at the first answer
    if kind != "greedy":
        assert sum(t for t in h.visits if t) <= s.num_options()  # one iteration's tries at most
    full = hint(s.observation(s.current_player()), s.legal_options(), f"{kind}:50", seed=1)
    if kind == "ismcts":
        assert sum(full.visits) == 50


def test_a_hint_stopped_from_another_thread_ends_long_before_its_budget():
    """A studio hint of a large budget is ended from outside (the seat moved on): its thread
    returns, having tried a small part of its budget."""
    import threading

    s = _first_real_decision(ROOT / "games" / "hearts.rcy")
    wanted = threading.Event()
    got = []
    thread = threading.Thread(
        target=lambda: got.append(
            hint(s.observation(s.current_player()), s.legal_options(), "ismcts:100000", seed=2, stop=wanted.is_set)
        ),
        daemon=True,
    )
    thread.start()
    wanted.set()
    thread.join(120)  # a safety net only: a search of 100,000 Hearts iterations takes minutes
    assert not thread.is_alive() and got
    assert sum(got[0].visits) < 100_000
