"""The games library (games/hearts.rcy, games/schwimmen-lives.rcy): whole games and rare rules.

Most checks here do not trust the game's own bookkeeping. A recorded game is replayed from
its events (every card movement and storage change) and the test works out by itself, from
the cards, what the rules say must have happened: who wins each trick, how many options a
player must have, the points of a deal, the value of every Schwimmen hand and who loses a
life. The game file's storages are then compared with that.

Random rollouts are played with the seeds of ``simulate(n, seed)`` (``rollout_seed``); the
rare-rule tests find a suitable deal by a bounded, deterministic search over seeds.
"""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

import recycle
from recycle.engine.game import rollout_seed
from recycle.players import RandomPlayer, ScriptedPlayer
from recycle.lang.forms.values import MoveEvent

from ..conftest import GAMES

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


class Stop(Exception):
    """Raised from a player or hook to end a game early (the recorded events are kept)."""


class Sink(list):
    """An event sink for ``play(record=...)`` that also keeps the state, so that a game
    stopped early by ``Stop`` can still be inspected."""

    def attach(self, state):
        self.state = state


class Replay:
    """Where every card is and every storage's value, rebuilt from a recorded game's events."""

    def __init__(self, game):
        self.game = game
        self.layout = game.layout
        self.where: dict[int, int] = {}
        self.sto: dict[str, object] = {}

    def apply(self, ev) -> None:
        if type(ev) is MoveEvent:
            if ev.action in ("create", "move", "swap"):
                self.where[ev.card] = ev.dst
        else:
            self.sto[ev.slot] = ev.value

    def cards(self, owner, kind: str, name: str) -> set[int]:
        i = self.layout.find(owner, kind, name)
        return {c for c, loc in self.where.items() if loc == i}

    def loc(self, ev_loc: int):
        info = self.layout.info(ev_loc)
        return info.name, info.owner if info.owner_kind == "player" else None


def by_decision(events) -> dict[int, list]:
    """Events grouped by the number of decisions made before them: group k follows decision k."""
    groups: dict[int, list] = {}
    for ev in events:
        groups.setdefault(ev.decision, []).append(ev)
    return groups


def chosen_move(group, player, src):
    """The first card the deciding player moved out of ``src`` (None when the option moved none)."""
    for ev in group:
        if type(ev) is MoveEvent and ev.chooser == player and ev.src == src:
            return ev
    return None


# =========================================================================================
# Hearts
# =========================================================================================


@pytest.fixture(scope="module")
def hearts():
    return recycle.load(GAMES / "hearts.rcy")


def penalty(attrs) -> int:
    if attrs["SUIT"] == "HEARTS":
        return 1
    return 13 if attrs["SUIT"] == "SPADES" and attrs["RANK"] == "Q" else 0


def is_qs(attrs) -> bool:
    return attrs["SUIT"] == "SPADES" and attrs["RANK"] == "Q"


def legal_plays(hand_attrs: dict[int, dict], trick_lead_suit, first_lead: bool, broken: bool) -> set[int]:
    """The cards the manual lets a player play: the rules worked out independently of the file."""
    if trick_lead_suit is None:  # leading
        if first_lead:
            return {c for c, a in hand_attrs.items() if a["SUIT"] == "CLUBS" and a["RANK"] == "TWO"}
        if broken or all(a["SUIT"] == "HEARTS" or is_qs(a) for a in hand_attrs.values()):
            return set(hand_attrs)
        return {c for c, a in hand_attrs.items() if a["SUIT"] != "HEARTS"}
    follow = {c for c, a in hand_attrs.items() if a["SUIT"] == trick_lead_suit}
    return follow or set(hand_attrs)


class HeartsTally:
    def __init__(self):
        self.deals = 0
        self.tricks = 0
        self.moons = Counter()  # "others" (+26 each), "forced" (-26: someone was 26 below)
        self.at_100 = 0  # deals started with a score of exactly 100 (the game goes on)
        self.first_lead = []  # options at the 2♣ lead
        self.unbroken_lead = []  # (options, hand size) for leads before hearts are broken
        self.broken_lead = []
        self.follow = []
        self.void = 0
        self.pass_decisions = 0
        self.passing_deals = 0


def check_hearts_game(game, result, tally: HeartsTally) -> None:
    """Replay one recorded game of Hearts and check every rule against the cards."""
    L = game.layout
    attrs = game.card_attrs
    rp = Replay(game)
    groups = by_decision(result.events)
    choices = {d.index: d for d in result.choices}
    assert sorted(choices) == list(range(1, result.decisions + 1))
    hand = [L.find(p, "iloc", "HAND") for p in range(4)]
    score = lambda: [rp.sto.get(f"SCORE(P{p})", 0) for p in range(4)]  # noqa: E731

    deal = {"open": False, "index": -1}

    def start_deal():
        assert max(score()) <= 100, "a deal started after somebody went over 100"
        tally.at_100 += max(score()) == 100
        deal.update(
            open=True,
            index=deal["index"] + 1,
            tricks=0,
            broken=False,
            penalty=[0] * 4,
            scores_before=score(),
            passed=Counter(),
            played=[],
            taken=[],
        )

    def end_trick():
        played, taken = deal["played"], deal["taken"]
        assert len(played) == 4 and sorted(c for c, _ in played) == sorted(c for c, _ in taken)
        takers = {w for _, w in taken}
        assert len(takers) == 1, "the four cards of a trick went to different players"
        lead_suit = attrs[played[0][0]]["SUIT"]
        assert len({p for _, p in played}) == 4, "a player played twice to one trick"
        _best_card, best_player = max(
            ((c, p) for c, p in played if attrs[c]["SUIT"] == lead_suit), key=lambda cp: RANKS[attrs[cp[0]]["RANK"]]
        )
        assert takers == {best_player}, (
            f"trick {[game.card_name(c) for c, _ in played]} won by P{takers} instead of P{best_player}"
        )
        if any(attrs[c]["SUIT"] == "HEARTS" or (is_qs(attrs[c]) and lead_suit != "SPADES") for c, _ in played):
            deal["broken"] = True
        deal["tricks"] += 1
        deal["next_leader"] = best_player
        played.clear()
        taken.clear()

    def end_deal():
        i = deal["index"]
        assert deal["tricks"] == 13, f"deal {i} had {deal['tricks']} tricks"
        pts = deal["penalty"]
        assert sum(pts) == 26, f"deal {i}: {pts} points taken"
        # passing: right (the previous player), across, left (the next player), hold
        shift = [3, 2, 1, 0][i % 4]
        expected = Counter({(p, (p + shift) % 4): 3 for p in range(4)}) if shift else Counter()
        assert deal["passed"] == expected, f"deal {i}: passed {dict(deal['passed'])}"
        tally.passing_deals += shift != 0
        before, after = deal["scores_before"], score()
        delta = [a - b for a, b in zip(after, before)]
        if 26 in pts:
            # the moon, as set in advance (DEDUCT_SHOOT 0, the manual's default): 26 to
            # every other player, unless one is more than 26 below the shooter
            shooter = pts.index(26)
            others = [p for p in range(4) if p != shooter]
            if all(before[shooter] - before[o] <= 26 for o in others):
                assert delta[shooter] == 0 and all(delta[o] == 26 for o in others), delta
                tally.moons["others"] += 1
            else:
                assert delta[shooter] == -26 and all(delta[o] == 0 for o in others), delta
                tally.moons["forced"] += 1
        else:
            assert delta == pts, f"deal {i}: scores moved by {delta}, points taken {pts}"
        assert all(not rp.cards(p, "iloc", "HAND") for p in range(4))
        tally.deals += 1
        tally.tricks += deal["tricks"]
        deal["open"] = False

    def apply(ev):
        if type(ev) is MoveEvent and ev.action == "move":
            (src, sp), (dst, dp) = rp.loc(ev.src), rp.loc(ev.dst)
            if src == "STOCK" and dst == "HAND" and not deal["open"]:
                start_deal()
            elif src == "PASS" and dst == "HAND":
                deal["passed"][(sp, dp)] += 1
            elif src == "HAND" and dst == "TRICK":
                assert sp == dp == ev.chooser
                deal["played"].append((ev.card, sp))
            elif src == "TRICK" and dst == "TAKEN":
                deal["taken"].append((ev.card, dp))
                if len(deal["taken"]) == 4:
                    rp.apply(ev)
                    end_trick()
                    return
            elif src == "TAKEN" and dst == "STOCK":
                deal["penalty"][sp] += penalty(attrs[ev.card])
        rp.apply(ev)
        if type(ev) is not MoveEvent and ev.slot == "DEAL":
            end_deal()

    for ev in groups.get(0, []):
        apply(ev)
    for k in range(1, result.decisions + 1):
        d = choices[k]
        p = d.player
        group = groups.get(k, [])
        mv = chosen_move(group, p, hand[p])
        assert mv is not None, "a decision that moved no card from the hand (the moon is no choice)"
        held = rp.cards(p, "iloc", "HAND")
        dst = L.info(mv.dst).name
        if dst == "PASS":
            assert d.options == len(held) and len(held) + len(rp.cards(p, "iloc", "PASS")) == 13
            assert not deal["played"] and deal["tricks"] == 0
            tally.pass_decisions += 1
        else:
            assert dst == "TRICK"
            played = deal["played"]
            if played:
                lead_suit = attrs[played[0][0]]["SUIT"]
                assert p == (played[-1][1] + 1) % 4, "play is not clockwise"
            else:
                lead_suit = None
                if deal["tricks"]:
                    assert p == deal["next_leader"], "the trick's winner does not lead next"
            first = lead_suit is None and deal["tricks"] == 0
            held_attrs = {c: attrs[c] for c in held}
            legal = legal_plays(held_attrs, lead_suit, first, deal["broken"])
            assert d.options == len(legal), (
                f"P{p} had {d.options} options, the rules allow {len(legal)} "
                f"({'lead' if lead_suit is None else 'follow ' + lead_suit})"
            )
            assert mv.card in legal
            if first:
                tally.first_lead.append(d.options)
            elif lead_suit is None and not deal["broken"]:
                tally.unbroken_lead.append((d.options, len(held)))
            elif lead_suit is None:
                tally.broken_lead.append(d.options)
            else:
                tally.follow.append(d.options)
                tally.void += not any(a["SUIT"] == lead_suit for a in held_attrs.values())
        for ev in group:
            apply(ev)
    assert not deal["open"]
    final = score()
    assert final == result.scores
    assert max(final) > 100
    assert result.winners == [p for p in range(4) if final[p] == min(final)]


def recorded_tally(game, games: int, tally, check):
    """Play ``games`` recorded rollouts (seeds of simulation seed 1) and check each into ``tally``."""
    for i in range(games):
        check(game, game.play(seed=rollout_seed(1, i), record=True), tally)
    return tally


@pytest.fixture(scope="module")
def hearts_tally(hearts):
    return recorded_tally(hearts, 120, HeartsTally(), check_hearts_game)


def test_hearts_400_rollouts_end_with_the_lowest_score_winning(hearts):
    stats = recycle.simulate(hearts, 400, seed=1)
    assert stats.finished == 400 and stats.step_limit_hits == 0
    for scores, winners in zip(stats.scores, stats.winners):
        assert max(scores) > 100  # the game ends only when someone goes over 100
        assert max(scores) <= 100 + 26  # the last deal started at 100 or below and adds at most 26
        assert winners == [p for p, v in enumerate(scores) if v == min(scores)]
        # every deal adds 26 points in all (78 when a shooter gives 26 to each other
        # player, -26 when they deduct): the total is a multiple of 26
        assert sum(scores) % 26 == 0
    # four seats of the same game: each wins 17-33% of 400 games (a 25% share, give or take
    # about two standard deviations)
    assert all(0.17 < w < 0.33 for w in stats.win_rate)
    assert 300 < stats.decisions["mean"] < 1200
    assert 4.0 < stats.options_per_decision < 5.5


def test_hearts_every_deal_13_tricks_26_points(hearts_tally):
    t = hearts_tally
    assert t.deals > 500  # 120 games of several deals each
    assert t.tricks == 13 * t.deals
    # the replay checked each deal: 26 points, or a moon. Random players shoot now and then
    # (about 1.6% of deals); both outcomes of the default setting occur in these games: +26
    # to the others, and -26 because another player was more than 26 points below the
    # shooter (CardShark's automatic deduction)
    assert t.moons["others"] > 0 and t.moons["forced"] > 0


def test_hearts_options_at_leads_and_follows(hearts_tally):
    t = hearts_tally
    # the first lead of every deal is the two of clubs: a single option
    assert len(t.first_lead) == t.deals and set(t.first_lead) == {1}
    # before hearts are broken a leader holding hearts (and other cards) may not lead them
    restricted = [(o, n) for o, n in t.unbroken_lead if o < n]
    assert len(restricted) > 0.5 * len(t.unbroken_lead)
    assert all(o <= n for o, n in t.unbroken_lead)
    # a follower must follow suit when able: about 3 options on average with random play
    # (2.94 over these games), far fewer than the cards in hand; over all plays about 3.4
    mean_follow = statistics.mean(t.follow)
    assert 2.6 < mean_follow < 3.3, mean_follow
    plays = t.first_lead + [o for o, _ in t.unbroken_lead] + t.broken_lead + t.follow
    assert 3.1 < statistics.mean(plays) < 3.7
    assert statistics.mean(o for o, _ in t.unbroken_lead) < statistics.mean(n for _, n in t.unbroken_lead) - 2
    assert len(t.follow) == 3 * t.tricks
    assert 0 < t.void < len(t.follow) / 2


def test_hearts_passing_happens_three_deals_in_four(hearts_tally):
    t = hearts_tally
    # right, across, left, hold: the replay checked each deal's direction; here, three
    # choices per player (13, 12 and 11 options) on every deal but each fourth
    assert 0.7 * t.deals < t.passing_deals < 0.8 * t.deals
    assert t.pass_decisions == 12 * t.passing_deals


# -- shooting the moon -------------------------------------------------------------------


class MoonPuppet:
    """Plays one seat of a deal meant for seat ``shooter`` to shoot the moon.

    It decides from its own ``View`` (hand, tricks on the table, LEAD and BROKEN), computes
    the legal cards itself and maps its pick to an option index by collection order (the
    hand bottom first, RECYCLE's "any" order). The shooter passes its lowest cards and plays
    its highest; the others pass point cards, play low, and throw points on the shooter's
    tricks. (``moon`` is kept for the callers: the moon is no longer a choice in play.)
    """

    needs_view = True

    def __init__(self, game, shooter: int, moon: int, stop_at_deal: int, picks: list):
        self.game = game
        self.shooter = shooter
        self.moon = moon
        self.stop_at_deal = stop_at_deal
        self.picks = picks  # every card picked, shared by the four seats
        L = game.layout
        self.hand = [L.find(p, "iloc", "HAND") for p in range(4)]
        self.trick = [L.find(p, "vloc", "TRICK") for p in range(4)]
        self.taken = [L.find(p, "vloc", "TAKEN") for p in range(4)]

    def rank(self, c):
        return RANKS[self.game.card_attrs[c]["RANK"]]

    def choose(self, view, options, rng):
        attrs = self.game.card_attrs
        me = view.player
        ints = view.ints()
        if ints.get("DEAL", 0) >= self.stop_at_deal:
            raise Stop
        if ints.get("MOON") == 1:
            return self.moon if len(options) > 1 else 0
        hand = view.cards(self.hand[me])
        assert None not in hand
        on_table = [view.cards(i) for i in self.trick]
        if all(not view.count(i) for i in self.trick + self.taken):
            # passing (the 2♣ lead has one option and is never asked)
            if me == self.shooter:
                pick = min(hand, key=self.rank)
            else:
                pick = max(hand, key=lambda c: (penalty(attrs[c]), attrs[c]["SUIT"] == "SPADES", self.rank(c)))
            self.picks.append(pick)
            return hand.index(pick)
        played = {p: t[0] for p, t in enumerate(on_table) if t}
        lead_suit = attrs[played[self.leader(played)]]["SUIT"] if played else None
        broken = ints.get("BROKEN", 0) == 1
        first_lead = lead_suit is None and len(hand) == 13
        legal = legal_plays({c: attrs[c] for c in hand}, lead_suit, first_lead, broken)
        legal_in_order = [c for c in hand if c in legal]
        assert len(legal_in_order) == len(options), (len(legal_in_order), len(options))
        if me == self.shooter:
            if lead_suit is not None and all(attrs[c]["SUIT"] != lead_suit for c in hand):
                pick = min(legal_in_order, key=lambda c: (penalty(attrs[c]) > 0, self.rank(c)))
            else:
                pick = max(legal_in_order, key=self.rank)
        elif lead_suit is not None and all(attrs[c]["SUIT"] != lead_suit for c in hand):
            if self.shooter not in played:
                shooter_winning = True  # the shooter is still to play, and plays high
            else:
                top = played[self.shooter]
                shooter_winning = attrs[top]["SUIT"] == lead_suit and all(
                    attrs[c]["SUIT"] != lead_suit or self.rank(c) <= self.rank(top) for c in played.values()
                )
            if shooter_winning:
                pick = max(legal_in_order, key=lambda c: (penalty(attrs[c]), self.rank(c)))
            else:
                pick = min(legal_in_order, key=lambda c: (penalty(attrs[c]), self.rank(c)))
        else:
            pick = min(legal_in_order, key=lambda c: (penalty(attrs[c]) > 0, self.rank(c)))
        self.picks.append(pick)
        return legal_in_order.index(pick)

    @staticmethod
    def leader(played: dict) -> int:
        """The player who led the cards on the table: the one whose predecessor has not played."""
        for p in played:
            if (p - 1) % 4 not in played:
                return p
        raise AssertionError("four cards on the table at a decision")


def play_puppets(game, seed, shooter, moon, stop_at_deal=1):
    sink = Sink()
    sink.decisions = []  # (decision, player, options, MOON) at every decision
    sink.picks = []

    def watch(s, p, options, i):
        sink.decisions.append((s.decisions, p, len(options), s.sto("game", "MOON")))

    players = [MoonPuppet(game, shooter, moon, stop_at_deal, sink.picks) for _ in range(4)]
    try:
        game.play(players=players, seed=seed, record=sink, on_decision=watch)
    except Stop:
        pass
    return sink


def deal_points(game, sink) -> list[list[int]]:
    """Penalty points of each finished deal, from the cards moved from TAKEN back to the stock."""
    out, cur = [], [0] * 4
    for ev in sink:
        if type(ev) is MoveEvent and ev.action == "move" and game.layout.info(ev.src).name == "TAKEN":
            cur[game.layout.info(ev.src).owner] += penalty(game.card_attrs[ev.card])
        elif type(ev) is not MoveEvent and ev.slot == "DEAL":
            out.append(cur)
            cur = [0] * 4
    return out


@pytest.fixture(scope="module")
def moon_seed(hearts):
    """The first seed (of 300) whose first deal, played by the puppets, is a moon for P0."""
    for seed in range(300):
        sink = play_puppets(hearts, seed, shooter=0, moon=0)
        if deal_points(hearts, sink)[:1] == [[26, 0, 0, 0]]:
            return seed
    pytest.fail("no moon for P0 in 300 deals played to let P0 shoot")


def with_deduct_shoot(hearts, value: int):
    """Hearts with CardShark's "Deduct Shoot" option declared ``value`` (the file says 0)."""
    source = (GAMES / "hearts.rcy").read_text(encoding="utf-8")
    text = source.replace("(declare 0 'DEDUCT_SHOOT)", f"(declare {value} 'DEDUCT_SHOOT)")
    assert text != source or value == 0
    return recycle.loads(text, "hearts.rcy")


@pytest.mark.parametrize("deduct, expected", [(None, [0, 26, 26, 26]), (0, [0, 26, 26, 26]), (1, [-26, 0, 0, 0])])
def test_hearts_shoot_the_moon(hearts, moon_seed, deduct, expected):
    """The moon is settled by an option chosen in advance, "+26 to the others" by default
    (the manual: Deduct Shoot is selected from the Options menu), not by a choice in play."""
    game = hearts if deduct is None else with_deduct_shoot(hearts, deduct)
    sink = play_puppets(game, moon_seed, shooter=0, moon=0)
    s = sink.state
    # the deal's points as counted at its end; the second deal counts its own from 0
    counted: dict = {}
    for ev in sink:
        if type(ev) is not MoveEvent and ev.slot == "DEAL":
            break
        if type(ev) is not MoveEvent and ev.slot.startswith("POINTS("):
            counted[ev.slot] = ev.value
    assert [counted.get(f"POINTS(P{p})") for p in range(4)] == [26, 0, 0, 0]
    assert [s.sto(p, "POINTS") for p in range(4)] == [0, 0, 0, 0]
    assert [s.sto(p, "SCORE") for p in range(4)] == expected
    moon_events = [ev for ev in sink if type(ev) is not MoveEvent and ev.slot == "MOON"]
    assert [ev.value for ev in moon_events] == [0, 1, 0]  # reset, a shooter, settled
    # nobody is asked anything about the moon
    assert [(p, n) for _, p, n, m in sink.decisions if m == 1] == []
    # the puppets' option indices moved the cards they meant (options in hand order)
    asked = [(k, p) for k, p, n, m in sink.decisions if n > 1 and m == 0]
    groups = by_decision(sink)
    assert [chosen_move(groups[k], p, game.layout.find(p, "iloc", "HAND")).card for k, p in asked] == sink.picks
    assert len(sink.picks) > 40
    # the scores were changed by the game, not by a player's decision; a second deal followed
    changed = {ev.slot: ev.value for ev in sink if type(ev) is not MoveEvent and ev.slot.startswith("SCORE")}
    assert {k: v for k, v in changed.items() if v} == (
        {"SCORE(P1)": 26, "SCORE(P2)": 26, "SCORE(P3)": 26} if expected[0] == 0 else {"SCORE(P0)": -26}
    )
    assert all(ev.chooser is None for ev in sink if type(ev) is not MoveEvent and ev.slot.startswith("SCORE"))
    assert s.sto("game", "DEAL") == 1


def test_hearts_deduct_is_automatic_when_someone_is_26_below(hearts, moon_seed):
    # P1 starts 30 points below the shooter: "+26 to the others" would not be fair, CardShark
    # deducts whatever the option says
    source = (GAMES / "hearts.rcy").read_text(encoding="utf-8")
    text = source.replace(
        "(set (game sto MOON) 0)\n   (all player 'P",
        "(set (game sto MOON) 0)\n   (set ((0 player) sto SCORE) 30)\n   (all player 'P",
    )
    assert text != source
    sink = play_puppets(recycle.loads(text, "hearts.rcy"), moon_seed, shooter=0, moon=0)
    assert [sink.state.sto(p, "SCORE") for p in range(4)] == [30 - 26, 0, 0, 0]


def test_hearts_a_score_of_exactly_100_plays_on(hearts, hearts_tally):
    """ "When one player goes over 100" (manual): a deal that ends with a score of exactly 100
    (and none higher) is followed by another deal."""
    assert hearts_tally.at_100 > 0  # the replay saw deals start at 100 and checked them
    for i in range(400):
        seed = rollout_seed(1, i)
        r = hearts.play(seed=seed, record=True)
        scores, deals_at_100 = [0] * 4, 0
        for ev in r.events:
            if type(ev) is not MoveEvent and ev.slot.startswith("SCORE(P"):
                scores[int(ev.slot[7])] = ev.value
            elif type(ev) is not MoveEvent and ev.slot == "DEAL" and max(scores) == 100:
                deals_at_100 = ev.value  # the number of deals played when the score was 100
        if deals_at_100:
            assert r.state.sto("game", "DEAL") > deals_at_100, f"seed {seed}: the game stopped at 100"
            assert max(r.scores) > 100
            return
    pytest.fail("no game of 400 had a deal ending on exactly 100")


# =========================================================================================
# Schwimmen with lives
# =========================================================================================


@pytest.fixture(scope="module")
def schwimmen():
    return recycle.load(GAMES / "schwimmen-lives.rcy")


# doubled card values: 31 is 62, three of a kind (30.5) 61, Fire (three aces) 64
DOUBLED = {"A": 22, "K": 20, "Q": 20, "J": 20, "TEN": 20, "NINE": 18, "EIGHT": 16, "SEVEN": 14}
THIRTY_ONE, FIRE = 62, 64


def hand_value(attrs: list[dict]) -> int:
    """A Schwimmen hand's value (doubled), worked out from the cards."""
    ranks = [a["RANK"] for a in attrs]
    if len(attrs) == 3 and ranks == ["A"] * 3:
        return FIRE
    if len(attrs) == 3 and len(set(ranks)) == 1:
        return 61
    by_suit = Counter()
    for a in attrs:
        by_suit[a["SUIT"]] += DOUBLED[a["RANK"]]
    return max(by_suit.values(), default=0)


# the draw for the first dealer (WinSwim), low to high: rank first, then the suit
RANK_ORDER = ["SEVEN", "EIGHT", "NINE", "TEN", "J", "Q", "K", "A"]
SUIT_ORDER = ["DIAMONDS", "HEARTS", "SPADES", "CLUBS"]


def draw_order(attrs: dict) -> tuple:
    """How high a card is in the draw for the first dealer."""
    return RANK_ORDER.index(attrs["RANK"]), SUIT_ORDER.index(attrs["SUIT"])


def next_afloat(player: int, afloat, n: int = 4) -> int:
    """The first player afloat on the left (next in index order) of ``player``."""
    for k in range(1, n + 1):
        if (player + k) % n in afloat:
            return (player + k) % n
    raise AssertionError("nobody afloat")


class SchwimmenTally:
    def __init__(self):
        self.games = 0
        self.rounds = 0
        self.fire = 0
        self.instant = 0  # rounds ended by 31 or Fire right after the deal
        self.ties = 0  # rounds where two or more tied for lowest (no Fire) and lost
        self.uncounted = 0  # rounds that would have sunk everybody afloat (dealt again)
        self.first_dealers = Counter()  # who won the draw for the first deal
        self.sank = 0
        self.knocks = 0
        self.renewals = 0
        self.exchanges = Counter()  # the dealer's choice: 0 keep, 1 exchange


def schwimmen_rounds(game, result_events, choices, decisions, tally: SchwimmenTally | None = None) -> list[dict]:
    """Replay a recorded game of Schwimmen; check every round against the rules worked out
    from the cards, and return one record per finished round."""
    tally = tally or SchwimmenTally()
    attrs = game.card_attrs
    n = game.nplayers
    rp = Replay(game)
    groups = by_decision(result_events)
    choices = {d.index: d for d in choices}
    rounds: list[dict] = []
    rnd: dict = {"open": False}
    drawn: dict[int, int] = {}  # player -> the card drawn for the first deal
    lives = lambda: [rp.sto.get(f"LIVES(P{p})", 0) for p in range(n)]  # noqa: E731
    sunk = lambda: [rp.sto.get(f"SUNK(P{p})", 0) for p in range(n)]  # noqa: E731
    hands = lambda: {p: rp.cards(p, "iloc", "HAND") for p in range(n)}  # noqa: E731

    def value_of(cards):
        return hand_value([attrs[c] for c in cards])

    def special(hs) -> bool:
        return any(value_of(h) in (THIRTY_ONE, FIRE) for h in hs.values() if h)

    def expected_dealer():
        if not rounds:  # the highest card of the draw deals first
            assert sorted(drawn) == list(range(n)), "not every player drew a card for the first deal"
            return max(drawn, key=lambda p: draw_order(attrs[drawn[p]]))
        last = rounds[-1]
        if not last["counted"]:  # a round that would have sunk everybody is dealt again
            return last["dealer"]
        return next_afloat(last["dealer"], last["afloat_after"], n)

    def start_round():
        afloat = {p for p in range(n) if not sunk()[p]}
        assert all(v >= 0 for v in lives()), "negative lives"
        rnd.clear()
        rnd.update(
            open=True,
            lives_before=lives(),
            sunk_before=sunk(),
            afloat=afloat,
            dealt=set(),
            dealer=None,
            turns=[],
            knock_turn=None,
            to_middle=[],
            instant=None,
            passes_in_row=0,
            discarded=0,
        )

    def after_dealer_choice():
        # the hand not taken went face up to the middle
        d = rnd["dealer"]
        middle = rp.cards("game", "vloc", "MIDDLE")
        if rnd["exchanged"]:
            assert rp.cards(d, "iloc", "HAND") == rnd["extra_before"] and middle == rnd["hand_before"]
        else:
            assert rp.cards(d, "iloc", "HAND") == rnd["hand_before"] and middle == rnd["extra_before"]
        rnd["instant"] = special(hands())

    def end_round():
        hs = hands()
        afloat = rnd["afloat"]
        assert rnd["dealt"] == afloat, "cards were dealt to a sunk player, or a player afloat got none"
        assert all(len(hs[p]) == 3 for p in afloat) and all(not hs[p] for p in range(n) if p not in afloat)
        values = {p: value_of(hs[p]) for p in afloat}
        assert all(rp.sto.get(f"VALUE(P{p})") == v for p, v in values.items())
        fire = {p for p, v in values.items() if v == FIRE}
        losers = (afloat - fire) if fire else {p for p, v in values.items() if v == min(values.values())}
        before_l, before_s = rnd["lives_before"], rnd["sunk_before"]
        counted = not (losers == afloat and all(before_l[p] == 0 for p in losers))
        exp_l, exp_s = list(before_l), list(before_s)
        if counted:
            for p in losers:
                if before_l[p] == 0:
                    exp_s[p] = 1  # a swimmer who loses sinks and leaves
                else:
                    exp_l[p] -= 1
        after_l, after_s = lives(), sunk()
        assert after_l == exp_l and after_s == exp_s, (
            f"values {values}, lives {before_l} -> {after_l} (expected {exp_l}), sunk {before_s} -> {after_s}"
        )
        assert all(v >= 0 for v in after_l)
        # how the round ended
        turns = rnd["turns"]
        assert (not turns) == rnd["instant"], "a round with 31/Fire after the deal went on, or one ended early"
        over = rp.sto.get("OVER") == 1
        if rnd["knock_turn"] is not None:
            after_knock = len(turns) - rnd["knock_turn"] - 1
            assert after_knock == len(afloat) - 1 or special(hs) or over, after_knock
        elif not over:
            assert special(hs), "a round ended with no knock, no 31/Fire and a full stock"
        if over:
            assert rnd["passes_in_row"] == len(afloat)
        rec = dict(
            rnd,
            values=values,
            losers=losers if counted else set(),
            fire=fire,
            hands=hs,
            counted=counted,
            lives_after=after_l,
            sunk_after=after_s,
            afloat_after={p for p in range(n) if not after_s[p]},
        )
        rounds.append(rec)
        tally.rounds += 1
        tally.fire += bool(fire)
        tally.instant += rnd["instant"]
        tally.ties += counted and not fire and len(losers) > 1
        tally.uncounted += not counted
        tally.sank += sum(exp_s) - sum(before_s)
        tally.knocks += rnd["knock_turn"] is not None
        rnd["open"] = False

    def apply(ev):
        if type(ev) is MoveEvent and ev.action == "move":
            (src, _), (dst, dp) = rp.loc(ev.src), rp.loc(ev.dst)
            if src == "STOCK" and dst == "DRAW":
                assert not rounds and not rnd["open"] and dp not in drawn
                drawn[dp] = ev.card
            elif src == "STOCK" and dst == "HAND":
                if not rnd["open"]:
                    start_round()
                rnd["dealt"].add(dp)
            elif src == "HAND" and dst in ("DISCARD", "STOCK") and rnd["open"]:
                end_round()
            elif src == "EXTRA" and dst == "MIDDLE":
                rp.apply(ev)
                rnd["to_middle"].append(ev.card)
                if len(rnd["to_middle"]) == 3:
                    after_dealer_choice()
                return
            elif src == "MIDDLE" and dst == "DISCARD":
                rnd["discarded"] += 1
                if rnd["discarded"] % 3 == 0:  # everybody passed: a new middle
                    assert rnd["passes_in_row"] == len(rnd["afloat"])
                    rnd["passes_in_row"] = 0
                    tally.renewals += 1
        elif type(ev) is not MoveEvent and ev.slot == "CLOSE" and ev.value == 1 and ev.chooser is not None:
            assert rnd["knock_turn"] is None
            rnd["knock_turn"] = len(rnd["turns"]) - 1
        rp.apply(ev)

    for ev in groups.get(0, []):
        apply(ev)
    for k in range(1, decisions + 1):
        d = choices[k]
        p = d.player
        assert rnd["open"]
        assert p in rnd["afloat"], "a sunk player was asked to decide"
        if rnd["dealer"] is None:
            assert p == expected_dealer(), f"P{p} deals, expected P{expected_dealer()}"
            if not rounds:
                tally.first_dealers[p] += 1
            assert d.options == 2
            rnd.update(
                dealer=p,
                exchanged=d.chosen == 1,
                hand_before=rp.cards(p, "iloc", "HAND"),
                extra_before=rp.cards("game", "iloc", "EXTRA"),
            )
            assert len(rnd["hand_before"]) == len(rnd["extra_before"]) == 3
            tally.exchanges[d.chosen] += 1
        else:
            prev = rnd["turns"][-1] if rnd["turns"] else rnd["dealer"]
            assert p == next_afloat(prev, rnd["afloat"], n), f"P{p} plays after P{prev}"
            assert not special(hands()), "a turn was played while somebody held 31 or Fire"
            knocked = rnd["knock_turn"] is not None
            # pass, swap all, 3 x 3 single swaps, and knock while nobody has knocked
            assert d.options == (11 if knocked else 12)
            rnd["passes_in_row"] = rnd["passes_in_row"] + 1 if d.chosen == 0 else 0
            rnd["turns"].append(p)
        for ev in groups.get(k, []):
            apply(ev)
    assert not rnd["open"]
    tally.games += 1
    return rounds


def check_schwimmen_game(game, r, tally) -> list[dict]:
    rounds = schwimmen_rounds(game, r.events, r.choices, r.decisions, tally)
    s = r.state
    afloat = [p for p in range(4) if not s.sto(p, "SUNK")]
    assert len(afloat) == 1 and r.winners == afloat
    assert r.scores == [s.sto(p, "AFLOAT") for p in range(4)]
    assert r.scores[afloat[0]] == len(rounds)
    for p in range(4):
        if p not in afloat:  # AFLOAT counts the rounds survived: up to the one they sank in
            sank_in = next(i for i, rec in enumerate(rounds) if rec["sunk_after"][p])
            assert r.scores[p] == sank_in
    return rounds


@pytest.fixture(scope="module")
def schwimmen_tally(schwimmen):
    return recorded_tally(schwimmen, 250, SchwimmenTally(), check_schwimmen_game)


@pytest.mark.slow  # (over 4 s: the fast suite stays under 5 minutes on 2 cores)
def test_schwimmen_400_rollouts_one_winner_lives_never_negative(schwimmen):
    L = schwimmen.layout
    lives = [L.storage_slot("sto", p, "LIVES") for p in range(4)]
    sunk = [L.storage_slot("sto", p, "SUNK") for p in range(4)]
    hands = [L.find(p, "iloc", "HAND") for p in range(4)]

    def watch(s, p, options, i):
        ints = s.ints
        assert all(0 <= ints[j] <= 3 for j in lives)
        assert ints[sunk[p]] == 0, "a sunk player decides"
        for q in range(4):
            if ints[sunk[q]]:
                assert ints[lives[q]] == 0 and not s.locs[hands[q]]

    winners = Counter()
    for i in range(400):
        r = schwimmen.play(seed=rollout_seed(1, i), on_decision=watch)
        s = r.state
        assert len(r.winners) == 1
        afloat = [p for p in range(4) if not s.sto(p, "SUNK")]
        assert afloat == r.winners
        assert all(s.sto(p, "LIVES") >= 0 for p in range(4))
        assert all(s.sto(p, "LIVES") == 0 for p in range(4) if p not in afloat)
        # every lost life is in the pot: 3 lives of each player who sank, plus the winner's
        assert s.sto("game", "POT") == 12 - s.sto(afloat[0], "LIVES")
        winners[afloat[0]] += 1
    assert all(80 < winners[p] < 120 for p in range(4)), winners  # a quarter of 400, give or take 20


def test_schwimmen_every_round_follows_the_rules(schwimmen_tally):
    t = schwimmen_tally
    assert t.games == 250 and t.rounds > 2000
    # the replay checked every round; these rules all occurred in these games:
    assert t.ties > 0  # a tie for lowest: every tied player lost a life
    assert t.instant > 0  # 31 or Fire right after the deal: no turn at all
    assert t.fire > 0  # three aces: every other player afloat lost a life
    assert t.uncounted > 0  # a round that would have sunk everybody afloat did not count
    # and was dealt again by the same dealer (the replay checked who dealt each round)
    assert sorted(t.first_dealers) == [0, 1, 2, 3]  # the draw, not always P0
    assert t.knocks > 0 and t.renewals > 0
    assert t.sank == 3 * t.games  # three players sink in each game of four
    assert t.exchanges[0] > 0 and t.exchanges[1] > 0


# -- rare rules, on deals found by a bounded search over seeds ---------------------------

KEEP, EXCHANGE = 0, 1  # the dealer's two options
PASS, KNOCK = 0, 11  # a turn's first and last options (pass, swap all, 9 single swaps, knock)


def first_deal(game, seed) -> dict:
    """The hands of the first round as dealt (before the dealer's choice), without playing on."""
    seen = {}

    def look(s, p, options, i):
        seen["dealer"] = p
        seen.update({q: s.location(q, "iloc", "HAND") for q in range(4)})
        seen["EXTRA"] = s.location("game", "iloc", "EXTRA")
        raise Stop

    try:
        game.play(seed=seed, on_decision=look)
    except Stop:
        pass
    return seen


def values_of(game, hands) -> dict:
    return {p: hand_value([game.card_attrs[c] for c in hands[p]]) for p in range(4)}


def find_seed(game, wanted, limit: int = 6000) -> int:
    """The first seed whose first deal is dealt by P0 (who wins the draw) and satisfies
    ``wanted(values)`` (values of the four hands as dealt, the dealer keeping hers); fails
    the test if none of ``limit`` seeds does."""
    for seed in range(limit):
        deal = first_deal(game, seed)
        if deal["dealer"] == 0 and wanted(values_of(game, deal)):
            return seed
    pytest.fail(f"no suitable deal in {limit} seeds")


def play_scripted(game, seed, script):
    """A whole game: the scripted decisions first (shared by all seats), then random play."""
    r = game.play(players=[ScriptedPlayer(script, fallback=RandomPlayer())] * 4, seed=seed, record=True)
    rounds = check_schwimmen_game(game, r, SchwimmenTally())
    return r, rounds


def test_schwimmen_fire_right_after_the_deal(schwimmen):
    # three aces are dealt to a player (about one deal in 250): the round ends at once
    # and every other player loses a life, whatever their hand
    seed = find_seed(schwimmen, lambda v: FIRE in v.values())
    values = values_of(schwimmen, first_deal(schwimmen, seed))
    holder = next(p for p, v in values.items() if v == FIRE)
    r, rounds = play_scripted(schwimmen, seed, [KEEP])
    first = rounds[0]
    assert first["turns"] == [] and first["fire"] == {holder}
    assert first["lives_after"] == [3 if p == holder else 2 for p in range(4)]
    # the next decision is already the second round's deal, by P1
    assert (r.choices[1].player, r.choices[1].options) == (1, 2)


def test_schwimmen_31_right_after_the_deal_ends_the_round(schwimmen):
    seed = find_seed(schwimmen, lambda v: THIRTY_ONE in v.values() and FIRE not in v.values())
    values = values_of(schwimmen, first_deal(schwimmen, seed))
    low = min(values.values())
    r, rounds = play_scripted(schwimmen, seed, [KEEP])
    first = rounds[0]
    assert first["turns"] == []  # nobody swapped, knocked or passed
    # the round is scored as usual: the lowest hand(s) lose a life, 31 is safe
    assert first["lives_after"] == [2 if values[p] == low else 3 for p in range(4)]
    assert all(first["lives_after"][p] == 3 for p in range(4) if values[p] == THIRTY_ONE)
    assert (r.choices[1].player, r.choices[1].options) == (1, 2)


@pytest.mark.parametrize("tied", [2, 3])
def test_schwimmen_tie_for_lowest_all_tied_lose_a_life(schwimmen, tied):
    # P1 knocks at once and everybody else passes, so the round is scored on the hands as dealt
    def wanted(v):
        low = min(v.values())
        return max(v.values()) < THIRTY_ONE and sum(x == low for x in v.values()) == tied

    seed = find_seed(schwimmen, wanted)
    values = values_of(schwimmen, first_deal(schwimmen, seed))
    low = min(values.values())
    r, rounds = play_scripted(schwimmen, seed, [KEEP, KNOCK, PASS, PASS, PASS])
    first = rounds[0]
    assert first["turns"] == [1, 2, 3, 0] and first["knock_turn"] == 0
    assert first["values"] == values
    assert first["lives_after"] == [2 if values[p] == low else 3 for p in range(4)]
    assert sum(v == 2 for v in first["lives_after"]) == tied
    assert r.state.sto("game", "POT") >= tied


@pytest.mark.parametrize("choice", [KEEP, EXCHANGE])
def test_schwimmen_dealer_keeps_or_exchanges(schwimmen, choice):
    L = schwimmen.layout
    extra, middle, hand0 = L.find("game", "iloc", "EXTRA"), L.find("game", "vloc", "MIDDLE"), L.find(0, "iloc", "HAND")
    seen = {}

    def watch(s, p, options, i):
        if s.decisions == 1:
            v0, v1 = s.view(0), s.view(1)
            # the dealer has seen her own hand, not the other one; nobody else sees either
            assert None not in v0.cards(hand0) and v0.cards(extra) == [None] * 3
            assert v1.cards(hand0) == [None] * 3 and v1.cards(extra) == [None] * 3
            seen["dealt"], seen["extra"] = s.location(0, "iloc", "HAND"), s.location("game", "iloc", "EXTRA")
        elif s.decisions == 2:
            seen["player"], seen["options"] = p, len(options)
            seen["hand"], seen["middle"] = s.location(0, "iloc", "HAND"), s.location("game", "vloc", "MIDDLE")
            seen["public"] = s.view(1).cards(middle)  # the middle lies face up
            raise Stop

    # seed 0's first deal has no 31 and no Fire in any of the five hands
    deal = first_deal(schwimmen, 0)
    values = values_of(schwimmen, deal)
    assert max(values.values()) < THIRTY_ONE and deal["dealer"] == 0
    try:
        schwimmen.play(players=[ScriptedPlayer([choice, PASS])] * 4, seed=0, on_decision=watch)
    except Stop:
        pass
    kept, other = (seen["dealt"], seen["extra"]) if choice == KEEP else (seen["extra"], seen["dealt"])
    assert sorted(seen["hand"]) == sorted(kept)
    assert sorted(seen["middle"]) == sorted(other) == sorted(seen["public"])
    assert set(seen["dealt"]).isdisjoint(seen["extra"])
    assert (seen["player"], seen["options"]) == (1, 12)  # the player left of the dealer begins


def drawn_cards(game, r) -> dict:
    """The card each player drew for the first deal, from a recorded game's events."""
    return {
        game.layout.info(ev.dst).owner: ev.card
        for ev in r.events
        if type(ev) is MoveEvent and ev.dst is not None and game.layout.info(ev.dst).name == "DRAW"
    }


def test_schwimmen_first_dealer_is_drawn(schwimmen):
    """WinSwim: "The player with the highest card value (7 ... A) deals first. If two or more
    players have the same value, the higher suit decides (Diamonds, Hearts, Spades, Clubs)"."""
    attrs = schwimmen.card_attrs
    found = {}
    for seed in range(200):
        r = schwimmen.play(seed=seed, record=True)
        drawn = drawn_cards(schwimmen, r)
        assert sorted(drawn) == [0, 1, 2, 3]
        best = max(drawn, key=lambda p: draw_order(attrs[drawn[p]]))
        assert r.choices[0].player == best, f"seed {seed}: P{r.choices[0].player} deals, P{best} drew highest"
        ranks = [attrs[c]["RANK"] for c in drawn.values()]
        if best != 0:
            found.setdefault("not P0", seed)
        if ranks.count(attrs[drawn[best]]["RANK"]) > 1:
            found.setdefault("suit decides", seed)  # two drew the highest rank
        # the drawn cards went back: the first round is dealt from the whole pack
        assert all(
            game_loc == "STOCK"
            for game_loc in [
                schwimmen.layout.info(ev.dst).name
                for ev in r.events
                if type(ev) is MoveEvent and ev.src is not None and schwimmen.layout.info(ev.src).name == "DRAW"
            ]
        )
    assert set(found) == {"not P0", "suit decides"}, found


def test_schwimmen_round_that_sinks_everybody_is_dealt_again(schwimmen):
    """WinSwim: "In the rare case that more than one player swim, and all finish a round with
    equal score, the round is repeated": no life is lost and the same player deals again."""
    for i in range(300):
        r = schwimmen.play(seed=rollout_seed(1, i), record=True)
        rounds = check_schwimmen_game(schwimmen, r, SchwimmenTally())
        for k, rec in enumerate(rounds[:-1]):
            if not rec["counted"]:
                assert rec["sunk_after"] == rec["sunk_before"] and rec["lives_after"] == rec["lives_before"]
                assert rounds[k + 1]["dealer"] == rec["dealer"]
                assert rounds[k + 1]["afloat"] == rec["afloat"]
                return
    pytest.fail("no round in 300 games would have sunk everybody afloat")
