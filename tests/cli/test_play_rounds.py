"""The ends of rounds in `recycle play` (issue 40.5): the cards a pass brought, a pause with
what each round changed (every player's figures, the person's own too), figures of this
deal (not the last one's), and at the game's end how every round was dealt. Exact text for
fixed deals against random players (their choices come from the deal's number)."""

import io
import re

import pexpect

import recycle
from recycle.cli.play import PlaySession, Terminal, seat_specs
from recycle.cli.rounds import RoundWatch

from ..conftest import GAMES, ROOT
from .test_play import PROMPT, plain, spawn

HEARTS = str(GAMES / "hearts.rcy")
SCHWIMMEN = str(GAMES / "schwimmen-lives.rcy")


class Keys(Terminal):
    """A plain terminal answering every prompt from a script (then ``default``); ``tty``
    makes it ask where a terminal would (the pause at a round's end), printing plain lines."""

    def __init__(self, keys, default="1", tty=False):
        super().__init__(io.StringIO(), io.StringIO(), tty=False)
        self.keys = list(keys)
        self.default = default
        self.tty = tty
        self.prompts: list[str] = []

    def ask(self, prompt):
        if self.keys:
            out = self.keys.pop(0)
        elif prompt.startswith("Your choice"):
            out = self.default
        else:  # the pause: Enter; the offer of another deal: quit
            out = "" if prompt.startswith("Press Enter") else "q"
        self.prompts.append(prompt)
        print(prompt + out, file=self.stdout)
        return out


def play(path, deal, seat, keys=(), tty=False, limit=None):
    g = recycle.load(path)
    term = Keys(keys, tty=tty)
    if limit is not None:  # then quit
        term.keys += ["1"] * limit + ["q"]
    session = PlaySession(
        term, g, path, seat, seat_specs("random", g.nplayers, seat), deal=deal, recordable=False
    )  # a game quit is not saved into the user's folder
    session.run(deal)
    return session, term.stdout.getvalue()


def block(text, start, stop):
    """The lines from the one starting with ``start`` up to (not with) the next one starting with ``stop``."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith(stop))
    return lines[i:j]


def test_hearts_a_round_ends_with_every_players_points_and_score():
    _, out = play(HEARTS, 4711, 2)
    assert block(out, "Round 1 (decisions", " hearts · deal") == [
        "Round 1 (decisions 1 to 64), what it changed:",
        "You, P2        points this deal 0 · score 0",  # the person's own, though 0
        "P0 random      points this deal 3 · score 3",
        "P1 random      points this deal 1 · score 1",
        "P3 random      points this deal 22 · score 22",
        "Table          hearts broken yes (was no) · deals played 1",
    ]
    assert block(out, "Round 2 (decisions", " hearts · deal")[1:] == [
        "You, P2        points this deal 0 · score 0",
        "P0 random      points this deal 14 · score 17 (+14)",
        "P1 random      points this deal 2 · score 3 (+2)",
        "P3 random      points this deal 10 · score 32 (+10)",
        "Table          hearts broken yes (was no) · deals played 2 (+1)",
    ]
    # the round's end is told before the summary: the last trick and the cards gathered,
    # none of the next deal's
    over = block(out, " hearts · deal #4711 · round 1 is over", "Round 1 (decisions")
    assert over[-2].startswith("        then P3's TAKEN → STOCK: ")
    assert over[-1].startswith("        then P2's points this deal = 0 · ")  # the deal's count
    assert not [line for line in over if "→ your HAND" in line]


def test_hearts_the_next_deals_table_shows_this_deals_figures():
    _, out = play(HEARTS, 4711, 2)
    first = block(out, " hearts · deal #4711 · decision 68 ", "Since your last turn:")
    # the others' points of the last deal are not shown as this deal's; every score is, your own too
    assert first[1:6] == [
        "You, P2        HAND (13)  2♠ 3♠ 9♠  4♥ 6♥ 8♥ 10♥  2♣ 3♣ 9♣  6♦ 10♦ A♦",
        "               score 0",
        "P0 random      HAND 13 cards · score 3",
        "P1 random      HAND 10 cards · PASS 3 cards · score 1",
        "P3 random      HAND 13 cards · score 22",
    ]


def test_hearts_the_cards_received_in_a_pass_are_shown():
    _, out = play(HEARTS, 4711, 2)
    screens = out.split(" hearts · deal #4711 · decision ")
    got = [s for s in screens if "You received from" in s]
    # one screen per passing deal: the first after the pass (passing right: from P3)
    first = got[0]
    assert "You received from P3: 4♣ 8♦ 10♦\n" in first
    hand = re.search(r"You, P2 +HAND \(13\)  (.*)", first).group(1).split()
    assert {"4♣", "8♦", "10♦"} <= set(hand)
    assert "You received from P0: A♠ 2♥ 3♥\n" in got[1]  # the second deal passes across
    # not on the screen after: the person played since
    after = screens[screens.index(first) + 1]
    assert "You received" not in after


def test_schwimmen_a_round_ends_with_the_lives_lost():
    _, out = play(SCHWIMMEN, 2, 0)
    assert block(out, "Round 1 (decisions", " schwimmen-lives · deal") == [
        "Round 1 (decisions 1 to 11), what it changed:",
        "You, P0        lives 2 (-1) · last hand (doubled) 20 · rounds afloat 1",
        "P1 random      lives 3 · last hand (doubled) 34 · rounds afloat 1",
        "P2 random      lives 3 · last hand (doubled) 38 · rounds afloat 1",
        "P3 random      lives 3 · last hand (doubled) 32 · rounds afloat 1",
        "Table          lives in the pot 1",
    ]
    # every hand shown at the round's end is told in full, not cut short
    over = block(out, " schwimmen-lives · deal #2 · round 1 is over", "Round 1 (decisions")
    assert "        then P3's HAND → DISCARD: Q♦ 7♣ 9♣" in over
    assert "You, P0        lives 0 (-1) · last hand (doubled) 34 · rounds afloat 3 (+1)" in out
    assert "You, P0        lives 0 · last hand (doubled) 22 (-12) · rounds afloat 3 · sunk yes (was 0)" in out


def test_the_end_shows_how_every_round_was_dealt():
    session, out = play(HEARTS, 4711, 2)
    end = out[out.index(" hearts · deal #4711 · game over") :]
    rounds = re.findall(r"^  Round (\d+) \(decision (\d+)\)$", end, re.MULTILINE)
    assert [int(n) for n, _ in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) > 1
    assert f"deals played {len(rounds)}" in end  # one round per deal played
    # round 1 as the record has it; every round's hands of 13 cards each
    first = block(end, "  Round 1 (decision 1)", "  Round 2 ")[1:]
    assert first == [f"    {label:<14}{' '.join(cards)}" for label, cards in session.recorder.deal.items()]
    hands = re.findall(r"^    HAND\(P\d\) +(.*)$", end, re.MULTILINE)
    assert len(hands) == 4 * len(rounds) and all(len(h.split()) == 13 for h in hands)
    # the last round's summary, with the final scores
    assert re.search(rf"Round {len(rounds)}, the last \(decisions \d+ to \d+\), what it changed:", end)


def test_a_one_round_game_keeps_its_one_deal():
    _, out = play(str(GAMES / "schwimmen.rcy"), 7, 0)
    assert "is over" not in out and "The deal, revealed (at the first decision):" in out
    assert "Round 1" not in out


def test_the_pause_waits_on_a_terminal_and_q_quits_there():
    # a terminal: the pause asks, Enter (any key but q) goes on
    _, out = play(SCHWIMMEN, 2, 0, keys=["1"] * 3 + [""], tty=True)
    assert "Press Enter for round 2 (q quits) \n" in out
    session, out = play(SCHWIMMEN, 2, 0, keys=["1"] * 3 + ["q"], tty=True)
    assert out.rstrip().endswith("you quit at decision 12 of deal #2")
    assert session.state.decisions == 12  # stopped at the pause, the next round not begun
    # plain lines (a script): no pause, the keys are the decisions' only
    _, out = play(SCHWIMMEN, 2, 0, keys=["1"] * 4)
    assert "Press Enter" not in out and "round 1 is over" in out


def test_undo_across_a_rounds_end_shows_it_again_once():
    # the person's last decision of round 1, taken back from round 2's first: round 1 ends again
    session, out = play(SCHWIMMEN, 2, 0, keys=["1", "1", "1", "", "u", "1", ""], tty=True, limit=3)
    assert out.count("round 1 is over") == 2
    assert "took back your last decision" in out
    # undo inside round 2: round 1's end is not shown again
    session, out = play(SCHWIMMEN, 2, 0, keys=["1", "1", "1", "", "2", "u", "1"], tty=True, limit=3)
    assert out.count("round 1 is over") == 1
    assert [r.number for r in session.rounds.rounds][:2] == [1, 2]


def test_the_rounds_values_are_the_states_at_each_decision():
    """The storages followed through the events are the state's own at every decision."""
    g = recycle.load(SCHWIMMEN)
    events: list = []
    s = g.new_state(seed=5, record=events)
    watch = RoundWatch(g)
    layout = g.layout
    while not s.is_terminal():
        watch.feed(events)
        watch.at_decision(s)
        ints = {layout.slot_label("sto", i): v for i, v in enumerate(s.ints)}
        assert {k: v for k, v in watch.values.items() if k in ints} == {
            k: v for k, v in ints.items() if k in watch.values
        }
        assert all(v == 0 for k, v in ints.items() if k not in watch.values)
        s.apply(s.num_options() - 1)
    watch.feed(events)
    last = watch.finish()
    assert last.number == len(watch.rounds) > 2
    assert [r.number for r in watch.rounds if r.end is None] == []


def test_a_rounds_pause_through_a_real_terminal(tmp_path):
    child = spawn(HEARTS, "--deal", "4711", "--seat", "2", "--players", "random", "--record", str(tmp_path / "h.json"))
    for _ in range(200):
        got = child.expect([PROMPT, r"Press Enter for round 2 \(q quits\) "])
        if got == 1:
            break
        child.sendline("1")
    else:
        raise AssertionError("no pause at the end of round 1")
    screen = plain(child.before)
    assert "hearts · deal #4711 · round 1 is over" in screen
    assert "P3 random      points this deal 22 · score 22" in screen
    child.sendline("")
    child.expect(PROMPT)
    assert "hearts · deal #4711 · decision 68 · you are P2" in plain(child.before)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_the_rounds_end_in_docs_play_is_the_programs():
    doc = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n( schwimmen-lives · deal #2 · round 1 is over.*?)\n```", doc, re.DOTALL).group(1)
    _, out = play(SCHWIMMEN, 2, 0, tty=True)
    lines = [line.rstrip() for line in out.splitlines()]
    want = [line.rstrip() for line in shown.splitlines()]
    start = lines.index(want[0])
    assert lines[start : start + len(want)] == want
