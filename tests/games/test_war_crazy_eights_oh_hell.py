"""The short classics of games/: war.rcy, crazy-eights.rcy, oh-hell.rcy.

Each game is played with random players and checked against its rules worked out here,
from the cards, independently of the game file: no card is lost or doubled after any
action, who wins a battle or a trick, which cards a player may play, the bids and the
score of every deal. One fixed-seed fact per game pins its transcript.
"""

from __future__ import annotations

import pytest

import recycle
from recycle.lang.forms.values import MoveEvent

from ..conftest import GAMES, ConservationCheck

RANKS = {
    "TWO": 2,
    "THREE": 3,
    "FOUR": 4,
    "FIVE": 5,
    "SIX": 6,
    "SEVEN": 7,
    "EIGHT": 8,
    "NINE": 9,
    "TEN": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
}
SUITS = ("HEARTS", "DIAMONDS", "CLUBS", "SPADES")


def load(name):
    return recycle.load(GAMES / name)


def string(s, owner, name):
    """A string storage's value in state ``s``."""
    return s.strs[s.game.layout.storage_slot("str", owner, name)]


def loc_name(game, i):
    info = game.layout.info(i)
    return info.name, (info.owner if info.owner_kind == "player" else None)


# =========================================================================================
# War
# =========================================================================================


@pytest.fixture(scope="module")
def war():
    return load("war.rcy")


@pytest.mark.slow  # (over 4 s: the fast suite stays under 5 minutes on 2 cores)
def test_war_conserves_cards_and_ends_by_its_rules(war):
    ended_early = 0
    for seed in range(40):
        sink = ConservationCheck()
        r = war.play(seed=seed, record=sink)
        s = r.state
        stacks = [len(s.location(p, "hloc", "STACK")) for p in range(2)]
        assert sum(stacks) == 52 and r.decisions == 0
        assert r.scores == stacks
        assert s.sto("game", "BATTLES") <= 1000
        if s.sto("game", "BATTLES") < 1000:
            ended_early += 1
            assert 0 in stacks and r.winners == [stacks.index(52)]
        elif stacks[0] == stacks[1]:
            assert r.winners == [0, 1]
        else:
            assert r.winners == [stacks.index(max(stacks))]
    assert ended_early >= 1  # some games are won outright before the cap


def test_war_the_higher_card_takes_the_table(war):
    """Replay the movements: the cards on the table go to the player who turned up the
    higher card (after a war, the last cards turned up), and a battle always takes every
    card on the table."""
    attrs = war.card_attrs
    wars = 0
    for seed in range(15):
        r = war.play(seed=seed, record=True)
        up = {0: None, 1: None}
        table = set()
        for ev in r.events:
            if type(ev) is not MoveEvent or ev.action != "move":
                continue
            (src, _sp), (dst, dp) = loc_name(war, ev.src), loc_name(war, ev.dst)
            if dst == "PLAY":
                up[dp] = ev.card
                table.add(ev.card)
            elif dst == "SPOILS":
                wars += src == "STACK"  # a card put face down in a war (not one picked up)
                table.add(ev.card)
            elif src in ("PLAY", "SPOILS") and dst == "STACK":
                a, b = (RANKS[attrs[up[p]]["RANK"]] for p in (0, 1))
                if a != b:
                    assert dp == (0 if a > b else 1), f"seed {seed}: {a} vs {b} went to P{dp}"
                table.discard(ev.card)
                if not table:
                    up = {0: None, 1: None}
        assert not table
    assert wars > 0  # ties happened and were played out


def test_war_fixed_seed_transcript(war):
    r = war.play(seed=1)
    assert r.scores == [52, 0] and r.winners == [0] and r.steps == 669
    assert r.state.sto("game", "BATTLES") == 626 and r.state.sto("game", "WARS") == 43


# =========================================================================================
# Crazy Eights
# =========================================================================================


@pytest.fixture(scope="module")
def eights():
    return load("crazy-eights.rcy")


def playable(game, s, p):
    """The cards of p's hand that the rules let p play now."""
    top = s.location("game", "vloc", "DISCARD")[-1]
    suit, rank = string(s, "game", "SUIT"), game.card_attrs[top]["RANK"]
    ok = []
    for c in s.location(p, "iloc", "HAND"):
        a = game.card_attrs[c]
        if a["RANK"] == "EIGHT" or a["SUIT"] == suit or a["RANK"] == rank:
            ok.append(c)
    return ok


def test_crazy_eights_options_follow_the_rules(eights):
    attrs = eights.card_attrs
    seen = {"draw": 0, "eight": 0, "play": 0, "pass": 0}

    def check(s, p, options, index):
        hand = s.location(p, "iloc", "HAND")
        ok = playable(eights, s, p)
        n_eights = sum(attrs[c]["RANK"] == "EIGHT" for c in ok)
        if ok:
            # one option per playable card, four (one per suit named) per eight
            assert len(options) == len(ok) - n_eights + 4 * n_eights
            for o in options:
                t = s.clone()
                t.apply(o)
                played = t.location("game", "vloc", "DISCARD")[-1]
                assert played in ok and played not in t.location(p, "iloc", "HAND")
                if attrs[played]["RANK"] == "EIGHT":
                    seen["eight"] += 1
                else:
                    assert string(t, "game", "SUIT") == attrs[played]["SUIT"]
                    seen["play"] += 1
        else:
            assert len(options) == 1  # draw, or pass when there is nothing to draw
            t = s.clone()
            t.apply(options[0])
            grew = len(t.location(p, "iloc", "HAND")) == len(hand) + 1
            seen["draw" if grew else "pass"] += 1
            assert grew or (not s.location("game", "iloc", "STOCK"))

    for seed in range(25):
        sink = ConservationCheck()
        r = eights.play(seed=seed, record=sink, on_decision=check)
        s = r.state
        hands = [s.location(p, "iloc", "HAND") for p in range(3)]
        total = (
            sum(map(len, hands))
            + len(s.location("game", "iloc", "STOCK"))
            + len(s.location("game", "vloc", "DISCARD"))
            + len(s.location("game", "vloc", "KEEP"))
        )
        assert total == 52
        penalty = [
            sum(
                {"EIGHT": 50, "J": 10, "Q": 10, "K": 10, "A": 1}.get(attrs[c]["RANK"], RANKS.get(attrs[c]["RANK"], 0))
                for c in h
            )
            for h in hands
        ]
        assert r.scores == penalty
        assert any(not h for h in hands) or s.sto("game", "PASSES") >= 3
    assert all(seen[k] > 0 for k in ("draw", "eight", "play"))


def test_crazy_eights_player_count_and_deal():
    two = recycle.loads(
        (GAMES / "crazy-eights.rcy").read_text().replace("(declare 3 'NUMP)", "(declare 2 'NUMP)"), "crazy-eights.rcy"
    )
    s = two.new_state(seed=4)
    assert [len(s.location(p, "iloc", "HAND")) for p in range(2)] == [7, 7]
    s = load("crazy-eights.rcy").new_state(seed=4)
    assert [len(s.location(p, "iloc", "HAND")) for p in range(3)] == [5, 5, 5]


def test_crazy_eights_fixed_seed_transcript(eights):
    r = eights.play(seed=3, describe=True)
    assert r.decisions == 13 and r.winners == [0] and r.scores == [0, 5, 22]
    assert r.choices[1].options == 5  # P1 holds the 8♥ (four suits) and one card to follow (K♣)


# =========================================================================================
# Oh Hell
# =========================================================================================


@pytest.fixture(scope="module")
def ohhell():
    return load("oh-hell.rcy")


def test_oh_hell_bids_tricks_and_scores(ohhell):
    attrs = ohhell.card_attrs
    L = ohhell.layout
    trick_locs = {L.find(p, "vloc", "TRICK"): p for p in range(4)}
    hooked = 0
    for seed in range(20):
        deals = []  # per deal: cards, bids, tricks won

        def check(s, p, options, index):
            cards = s.sto("game", "CARDS")
            if (
                s.sto("game", "BIDS") < 4
                and not any(s.location(q, "vloc", "TRICK") for q in range(4))
                and len(s.location(p, "iloc", "HAND")) == cards
            ):
                # bidding: 0..cards, except the dealer's bid that makes the sum come out
                nonlocal hooked
                if s.sto("game", "BIDS") == 0:
                    deals.append(  # noqa: B023 - called within its iteration
                        {
                            "cards": cards,
                            "trump": string(s, "game", "TRUMP"),
                            "tricks": [0] * 4,
                            "scores": [s.sto(q, "SCORE") for q in range(4)],
                        }
                    )
                last = s.sto("game", "BIDS") == 3
                forbidden = cards - s.sto("game", "BIDSUM")
                expected = cards + 1 - (1 if last and 0 <= forbidden <= cards else 0)
                hooked += last and 0 <= forbidden <= cards
                assert len(options) == expected
                return
            hand = s.location(p, "iloc", "HAND")
            lead = string(s, "game", "LEAD")
            follow = [c for c in hand if attrs[c]["SUIT"] == lead]
            assert len(options) == (len(follow) if follow else len(hand))

        r = ohhell.play(seed=seed, record=True, on_decision=check)
        # tricks, worked out from the cards played
        played = []
        for ev in r.events:
            if type(ev) is MoveEvent and ev.action == "move" and ev.dst in trick_locs:
                played.append((ev.card, trick_locs[ev.dst]))
                if len(played) == 4:
                    trump = deals[-1]["trump"] if deals else None
                    lead = attrs[played[0][0]]["SUIT"]

                    def power(cp):
                        a = attrs[cp[0]]
                        return (a["SUIT"] == trump, a["SUIT"] == lead, RANKS[a["RANK"]])  # noqa: B023 - max() calls it here

                    winner = max(played, key=power)[1]
                    # the deal this trick belongs to: count tricks so far
                    done = sum(sum(d["tricks"]) for d in deals)
                    k, acc = 0, 0
                    while acc + deals[k]["cards"] <= done:
                        acc += deals[k]["cards"]
                        k += 1
                    deals[k]["tricks"][winner] += 1
                    played = []
        assert [d["cards"] for d in deals] == [5, 4, 3, 2, 1]
        s = r.state
        final = [s.sto(q, "SCORE") for q in range(4)]
        assert r.scores == final
        assert len(s.location("game", "iloc", "STOCK")) == 52
    assert hooked > 0


def test_oh_hell_scores_exact_bids(ohhell):
    """Bid and tricks of each deal, from the storage changes, give the score change."""
    for seed in range(10):
        r = ohhell.play(seed=seed, record=True)
        bids, tricks, score, expected = [0] * 4, [0] * 4, [0] * 4, [0] * 4
        deals = 0
        for ev in r.events:
            if type(ev) is MoveEvent:
                continue
            name, value = ev.slot, ev.value
            for p in range(4):
                if name == f"BID(P{p})":
                    bids[p] = value
                elif name == f"TRICKS(P{p})":
                    tricks[p] = value
                elif name == f"SCORE(P{p})":
                    assert tricks[p] == bids[p] and value - score[p] == 10 + bids[p]
                    score[p] = value
            if name == "CARDS" and value < 5:
                # a deal ended: everyone who made the bid has scored it, nobody else
                deals += 1
                expected = [e + (10 + b if t == b else 0) for e, b, t in zip(expected, bids, tricks)]
        assert deals == 5 and score == expected == r.scores


def test_oh_hell_fixed_seed_transcript(ohhell):
    r = ohhell.play(seed=1, describe=True)
    assert r.decisions == 80 and [d.options for d in r.choices[:4]] == [6, 6, 6, 5]
