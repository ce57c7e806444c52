"""Information states: what a player has observed, sampled worlds, and no peeking.

With ``track=True`` a state keeps, per player, the cards whose location the player knows from
what it observed (``known_locations``): a card seen arriving or leaving stays known after it is
turned face down; a card that moves unseen out of a location makes every card known to be
there uncertain. ``Observation.sample_world`` re-deals only the cards the player neither sees
nor knows, so every sampled world agrees with the observations. Checked here:

(a) Hearts (``games/hearts.rcy``): right after the three cards are passed, the passer knows
    they are in the receiver's hand, and every sampled world keeps them there, while the other
    hidden cards vary from world to world; whatever a player "knows" is true.
(b) Small games written here: a card shown face up and then put face down (in a game pile, a
    hidden pile, or a player's hand) is known and never re-dealt; a card never seen is; an
    unseen move out of the pile makes the observer forget what it knew there (knowledge stays
    true); knowledge follows a swap of whole piles, but not a swap of two hidden cards that
    the observer could not tell apart.
(c) No peeking through the API: at every decision of Schwimmen and Hearts games, hidden
    locations read as ``None`` in every observation and no hidden card's name appears in an
    observation's text (unless a card of the same name is visible to that player).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import recycle
from recycle.engine.game import players_stream

from ..conftest import CORPUS

HERE = Path(__file__).resolve()
GAMES_DIR = HERE.parents[2] / "games"
CORPUS_DIR = CORPUS
HEARTS = GAMES_DIR / "hearts.rcy"


def random_step(state, draw) -> None:
    """One decision, chosen as the random player chooses (a draw only among 2+ options)."""
    n = state.num_options()
    state.apply(int(draw() * n) if n > 1 else 0)


def loc_index(game, name: str, kind: str, owner: int | str = "game") -> int:
    """A location's index in the layout (``owner`` a player index or ``"game"``)."""
    for info in game.layout.infos:
        if info.name != name or info.kind != kind:
            continue
        if owner == "game" and info.owner_kind == "game":
            return info.index
        if owner != "game" and info.owner_kind == "player" and info.owner == owner:
            return info.index
    raise KeyError((name, kind, owner))


def visible_to(info, p: int) -> bool:
    """RECYCLE.md section 6, written out independently of the engine (no teams in these games)."""
    if info.visibility in ("public", "memory"):
        return True
    if info.visibility == "hidden":
        return False
    mine = info.owner_kind == "player" and info.owner == p
    if info.owner_kind == "team":
        mine = info.owner == p  # every player is alone on team p unless (create teams ...)
    if info.visibility == "private":
        return mine
    if info.visibility == "others":
        return not mine
    raise AssertionError(info)


def assert_knowledge_is_true(state, nplayers: int) -> None:
    """Every fact a player holds is true of the state, and observations only report cards
    the player cannot see now."""
    infos = state.game.layout.infos
    for p in range(nplayers):
        for c, where in state.known_locations(p).items():
            assert state.card_loc[c] == where, f"P{p} believes card {c} is in {infos[where].label}"
            assert c in state.locs[where]
        for c, where in state.observation(p).known_locations().items():
            assert state.card_loc[c] == where
            assert not visible_to(infos[where], p)


def assert_world_agrees(state, world, p: int) -> None:
    """A sampled world of ``p``: the same decision, the same counts and visible cards, every
    known card in its place, the same cards overall, and a consistent card table."""
    infos = state.game.layout.infos
    assert not world.is_terminal() and world.current_player() == state.current_player()
    assert world.decisions == state.decisions
    assert [len(x) for x in world.locs] == [len(x) for x in state.locs]
    for i, lst in enumerate(state.locs):
        if visible_to(infos[i], p):
            assert world.locs[i] == lst, f"visible {infos[i].label} changed in P{p}'s world"
    for c, where in state.observation(p).known_locations().items():
        assert world.card_loc[c] == where, f"known card {c} moved out of {infos[where].label}"
    physical = [c for i, lst in enumerate(world.locs) if infos[i].visibility != "memory" for c in lst]
    assert sorted(physical) == sorted(
        c for i, lst in enumerate(state.locs) if infos[i].visibility != "memory" for c in lst
    )
    for i, lst in enumerate(world.locs):
        if infos[i].visibility != "memory":
            for c in lst:
                assert world.card_loc[c] == i


# -- (a) the Hearts pass ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hearts():
    return recycle.load(HEARTS)


def play_to_after_the_pass(game, seed):
    """Step a tracked Hearts game to the first decision after the passed cards are delivered.

    Returns the state and, per player, the cards dealt to it (at the first decision)."""
    s = game.new_state(seed=seed, track=True)
    draw = players_stream(seed).random
    hands = [loc_index(game, "HAND", "iloc", p) for p in range(4)]
    passes = [loc_index(game, "PASS", "iloc", p) for p in range(4)]
    dealt = [set(s.locs[h]) for h in hands]
    assert all(len(d) == 13 for d in dealt)
    passing = False
    while True:
        random_step(s, draw)
        assert not s.is_terminal() and s.decisions < 20, "the pass never completed"
        if any(s.locs[i] for i in passes):
            passing = True
        elif passing:  # every PASS pile is empty again: the pass was delivered
            break
    return s, dealt, hands


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_hearts_passer_knows_where_its_three_cards_went(hearts, seed):
    s, dealt, hands = play_to_after_the_pass(hearts, seed)
    assert all(len(s.locs[h]) == 13 for h in hands)
    assert_knowledge_is_true(s, 4)
    for p in range(4):
        # deal 0 passes "right": to the player 3 seats on (SEAT + SHIFT mod 4, SHIFT = 3)
        q = (p + 3) % 4
        passed = sorted(c for c in dealt[p] if s.card_loc[c] != hands[p])
        assert len(passed) == 3, f"P{p} passed {passed}"
        assert all(s.card_loc[c] == hands[q] for c in passed)
        known = s.observation(p).known_locations()
        for c in passed:
            assert known.get(c) == hands[q], f"P{p} does not know it passed {hearts.card_name(c)} to P{q}"
        # nobody else saw those cards move, and the receiver simply sees them in its hand
        for r in range(4):
            if r not in (p, q):
                assert not set(passed) & set(s.observation(r).known_locations()), f"P{r} peeked at P{p}'s pass"
        assert not set(passed) & set(s.observation(q).known_locations())
        assert set(passed) <= set(s.observation(q).cards(hands[q]))


@pytest.mark.parametrize("seed", [0, 3])
def test_hearts_sampled_worlds_keep_the_passed_cards(hearts, seed):
    s, dealt, hands = play_to_after_the_pass(hearts, seed)
    before = ([list(x) for x in s.locs], list(s.card_loc), [s.known_locations(p) for p in range(4)])
    for p in range(4):
        q = (p + 3) % 4
        passed = sorted(c for c in dealt[p] if s.card_loc[c] == hands[q])
        obs = s.observation(p)
        unknown = [c for h in hands if h != hands[p] for c in s.locs[h] if c not in passed]
        assert len(unknown) == 3 * 13 - 3
        placements = set()
        for k in range(8):
            w = obs.sample_world(random.Random(k))
            assert_world_agrees(s, w, p)
            for c in passed:
                assert w.card_loc[c] == hands[q] and c in w.locs[hands[q]], f"world {k}: a passed card moved"
            placements.add(tuple(w.card_loc[c] for c in unknown))
        assert len(placements) >= 7, f"P{p}'s worlds do not vary the cards it has not seen"
    # the state itself is untouched by sampling
    assert ([list(x) for x in s.locs], list(s.card_loc), [s.known_locations(p) for p in range(4)]) == before
    assert_knowledge_is_true(s, 4)


def two_of_clubs(game) -> int:
    return next(c for c in range(52) if game.card_name(c) == "2\u2663")


@pytest.mark.parametrize("seed", [0, 3])
def test_hearts_sampled_worlds_are_states_the_game_can_be_in(hearts, seed):
    """The first lead goes to the holder of the two of clubs, so everyone knows who holds it;
    a world that re-deals it elsewhere offers no option now and is dealt again."""
    s, _dealt, hands = play_to_after_the_pass(hearts, seed)
    leader = s.current_player()
    assert s.card_loc[two_of_clubs(hearts)] == hands[leader] and s.num_options() == 1
    for p in range(4):
        for k in range(8):
            w = s.observation(p).sample_world(random.Random(k))
            assert w.card_loc[two_of_clubs(hearts)] == hands[leader], f"P{p}'s world {k}: 2C left the leader"
            assert w.num_options() >= 1, f"P{p}'s world {k} waits at a choice with no option"


def test_a_world_without_options_is_a_recycle_error_not_a_crash(hearts):
    """A re-deal that ignores what the flow revealed (here done by hand, as sample_world
    would without its check) leaves a choice with no option: a RecycleRuntimeError from
    every method, never an internal error."""
    from recycle.engine.knowledge import determinize

    s, _dealt, hands = play_to_after_the_pass(hearts, 0)
    observer = (s.current_player() + 1) % 4
    for k in range(50):
        w = s.clone()
        determinize(w, observer, random.Random(k), s.known_locations(observer))
        if w.card_loc[two_of_clubs(hearts)] != hands[s.current_player()]:
            break
    assert not w.is_terminal()
    for call in (
        w.num_options,
        w.legal_options,
        lambda: w.clone().apply(0),
        lambda: w.play_randomly(random.Random(0).random),
    ):
        with pytest.raises(recycle.RecycleRuntimeError, match="a choice with no legal option"):
            call()


def test_hearts_knowledge_stays_true_through_whole_games(hearts):
    """At every decision of two tracked games, for every player, all it 'knows' is true; and a
    world sampled every 25 decisions agrees with its observations."""
    for seed in (1, 2):
        s = hearts.new_state(seed=seed, track=True)
        draw = players_stream(seed).random
        while not s.is_terminal():
            assert_knowledge_is_true(s, 4)
            if s.decisions % 25 == 0:
                p = s.decisions // 25 % 4
                assert_world_agrees(s, s.observation(p).sample_world(random.Random(s.decisions)), p)
            random_step(s, draw)


def test_a_tracking_clone_keeps_and_updates_its_own_knowledge(hearts):
    s, _dealt, _hands = play_to_after_the_pass(hearts, 5)
    c = s.clone(track=True)
    assert all(c.known_locations(p) == s.known_locations(p) for p in range(4))
    assert all(s.clone().known_locations(p) == {} for p in range(4))  # clone() does not track
    before = [s.known_locations(p) for p in range(4)]
    draw = random.Random(7).random
    for _ in range(8):  # the first two tricks, on the clone only
        random_step(c, draw)
        assert_knowledge_is_true(c, 4)
    assert [s.known_locations(p) for p in range(4)] == before, "the clone's play changed the original's knowledge"
    assert any(c.known_locations(p) != before[p] for p in range(4))


def test_tracking_does_not_change_the_game(hearts):
    for seed in range(3):
        s = hearts.new_state(seed=seed, track=True)
        draw = players_stream(seed).random
        while not s.is_terminal():
            random_step(s, draw)
        r = hearts.play(seed=seed)
        assert s.returns() == r.scores and s.card_loc == r.state.card_loc and s.locs == r.state.locs


# -- (b) small games ----------------------------------------------------------------------------

DECK = "(deck (RANK (A, B, C, D, E, F)) (SUIT (X, Y)))"  # 12 cards


def small_game(hide: str, then: str = "(turn pass)", shuffle_pile: bool = False):
    """Two players. A card is dealt face up to (game vloc SHOWN), everyone sees it, and it is
    put face down on ``hide``; two unseen cards follow it there; each player gets three cards
    (P1: HAND, P0: HAND); P0 chooses; the game does ``then``; P0 chooses again."""
    text = f"""(game
 (setup (create players 2)
  (create deck (game iloc STOCK) {DECK}))
 (do (
  (shuffle (game iloc STOCK))
  (move (top (game iloc STOCK)) (top (game vloc SHOWN)))
  (move (top (game vloc SHOWN)) (top {hide}))
  (repeat 2 (move (top (game iloc STOCK)) (top {hide})))
  {"(shuffle " + hide + ")" if shuffle_pile else ""}
  (repeat 3 (move (top (game iloc STOCK)) (top ((0 player) iloc HAND))))
  (repeat 3 (move (top (game iloc STOCK)) (top ((1 player) iloc HAND))))
  (move (top (game iloc STOCK)) (top (game iloc OTHER)))))
 (choice ((turn pass) (inc (game sto X) 1)))
 (do ({then}))
 (choice ((turn pass) (inc (game sto X) 1)))
 (scoring max 0))"""
    return recycle.loads(text, "small.rcy")


HIDING_PLACES = {
    "face-down game pile": ("(game iloc PILE)", ("PILE", "iloc", "game")),
    "hidden pile": ("(game hloc PILE)", ("PILE", "hloc", "game")),
    "P0's hand": ("((0 player) iloc HAND)", ("HAND", "iloc", 0)),
}


def shown_card(game, s) -> int:
    """The card that was shown face up: the one whose place the observer P1 knows."""
    known = s.observation(1).known_locations()
    assert len(known) == 1, known
    return next(iter(known))


@pytest.mark.parametrize("place", list(HIDING_PLACES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_card_seen_face_up_then_hidden_is_not_redealt(place, seed):
    hide, (name, kind, owner) = HIDING_PLACES[place]
    g = small_game(hide)
    s = g.new_state(seed=seed, track=True)
    where = loc_index(g, name, kind, owner)
    hand1 = loc_index(g, "HAND", "iloc", 1)
    assert s.current_player() == 0 and not s.is_terminal()
    assert_knowledge_is_true(s, 2)

    obs = s.observation(1)
    c = shown_card(g, s)
    assert obs.known_locations() == {c: where}, "P1 knows exactly where the shown card is, nothing else"
    assert s.card_loc[c] == where
    assert obs.cards(where) == [None] * len(s.locs[where])  # still face down for P1
    if owner == 0:
        assert s.observation(0).known_locations() == {}  # P0 sees its own hand
    else:
        assert s.observation(0).known_locations() == {c: where}

    never_seen = sorted(x for x in range(12) if x != c and s.card_loc[x] != hand1)
    assert len(never_seen) == 12 - 1 - 3
    seen_places = {x: set() for x in never_seen}
    for k in range(20):
        w = obs.sample_world(random.Random(k))
        assert_world_agrees(s, w, 1)
        assert w.card_loc[c] == where and w.locs[where].index(c) == s.locs[where].index(c)
        assert w.locs[hand1] == s.locs[hand1]
        for x in never_seen:
            seen_places[x].add(w.card_loc[x])
    assert all(len(places) >= 2 for places in seen_places.values()), "a card P1 never saw is not re-dealt across worlds"


@pytest.mark.parametrize("place", ["face-down game pile", "hidden pile"])
def test_an_unseen_move_out_of_a_pile_forgets_what_was_known_there(place):
    hide, (name, kind, owner) = HIDING_PLACES[place]
    # after P0's first choice, the top card of the pile goes face down to (game iloc OUT)
    g = small_game(hide, then=f"(move (top {hide}) (top (game iloc OUT)))")
    out = loc_index(g, "OUT", "iloc")
    where = loc_index(g, name, kind, owner)
    for seed in range(3):
        s = g.new_state(seed=seed, track=True)
        c = shown_card(g, s)
        s.apply(0)
        assert not s.is_terminal() and len(s.locs[out]) == 1
        assert s.card_loc[c] == where, "the shown card is at the bottom: it is still there"
        # nobody saw which card left the pile: nobody may claim to know the shown card's place
        for p in (0, 1):
            assert c not in s.known_locations(p), f"P{p} still claims to know the shown card"
            assert s.observation(p).known_locations() == {}
        assert_knowledge_is_true(s, 2)
        for k in range(10):
            assert_world_agrees(s, s.observation(1).sample_world(random.Random(k)), 1)


def test_a_move_seen_arriving_keeps_the_rest_known():
    """P0 sees the card that leaves the face-down pile (it lands in P0's hand), so P0 still
    knows the shown card is in the pile; P1, who saw nothing, forgets it."""
    g = small_game("(game iloc PILE)", then="(move (top (game iloc PILE)) (top ((0 player) iloc HAND)))")
    pile = loc_index(g, "PILE", "iloc")
    for seed in range(3):
        s = g.new_state(seed=seed, track=True)
        c = shown_card(g, s)
        s.apply(1)
        assert s.card_loc[c] == pile
        assert s.observation(0).known_locations() == {c: pile}
        assert s.observation(1).known_locations() == {}
        assert_knowledge_is_true(s, 2)
        for k in range(10):
            w = s.observation(0).sample_world(random.Random(k))
            assert_world_agrees(s, w, 0)
            assert w.card_loc[c] == pile


def test_knowledge_follows_a_swap_of_whole_piles():
    g = small_game("(game iloc PILE)", then="(swap (game iloc PILE) (game iloc OTHER))")
    other = loc_index(g, "OTHER", "iloc")
    for seed in range(3):
        s = g.new_state(seed=seed, track=True)
        c = shown_card(g, s)
        s.apply(0)
        assert s.card_loc[c] == other
        assert s.observation(1).known_locations() == {c: other}
        assert_knowledge_is_true(s, 2)
        for k in range(5):
            assert s.observation(1).sample_world(random.Random(k)).card_loc[c] == other


def test_an_unseen_card_swap_reveals_nothing():
    """The shown card lies face down in a pile of three that is then shuffled out of sight; the
    top card of the pile is swapped, unseen, with the single card of (game iloc OTHER). P1's
    observations are the same whether or not the shown card was the one swapped, so what P1
    knows must be the same too."""
    g = small_game("(game iloc PILE)", then="(swap (top (game iloc PILE)) (top (game iloc OTHER)))", shuffle_pile=True)
    other = loc_index(g, "OTHER", "iloc")
    beliefs, truths = set(), set()
    for seed in range(12):
        s = g.new_state(seed=seed, track=True)
        c = shown_card(g, s)
        s.apply(0)
        truths.add(s.card_loc[c] == other)
        assert_knowledge_is_true(s, 2)
        known = s.observation(1).known_locations()
        # P1 cannot know where the shown card is: it is in PILE or in OTHER
        beliefs.add(known.get(c))
    assert truths == {True, False}, "the seeds cover both cases"
    claimed = sorted(g.layout.infos[i].label for i in beliefs - {None})
    assert beliefs == {None}, f"P1 'knows' the shown card is in {claimed}, wherever it truly is"


# -- (c) no peeking -------------------------------------------------------------------------------

PEEK_GAMES = [
    pytest.param(GAMES_DIR / "schwimmen.rcy", range(4), id="games/schwimmen"),
    pytest.param(GAMES_DIR / "schwimmen-lives.rcy", range(2), id="games/schwimmen-lives"),
    pytest.param(HEARTS, range(1), id="games/hearts"),
    pytest.param(CORPUS_DIR / "Schwimmen5.rcy", range(3), id="corpus/Schwimmen5"),
    pytest.param(CORPUS_DIR / "Hearts4.rcy", range(2), id="corpus/Hearts4"),
]


def check_no_peeking(g, s) -> None:
    infos = g.layout.infos
    for p in range(g.nplayers):
        obs = s.observation(p)
        visible = set()
        hidden = set()
        for info in infos:
            lst = s.locs[info.index]
            got = obs.cards(info.index)
            assert len(got) == len(lst), "counts are public"
            if visible_to(info, p):
                assert got == [int(c) for c in lst]
                visible.update(lst)
            else:
                assert got == [None] * len(lst), f"P{p} reads the cards of {info.label}"
                hidden.update(lst)
        for label, cards in obs.locations().items():
            assert all(x is None for x in cards) or all(x is not None for x in cards), label
        assert not {x for x in obs.known_cards()} & (hidden - visible)
        names_visible = {g.card_name(c) for c in visible}
        names_hidden = {g.card_name(c) for c in hidden} - names_visible
        tokens = set(repr(obs).split())
        leaked = names_hidden & tokens
        assert not leaked, f"P{p}'s observation shows hidden cards {sorted(leaked)}"
        if p == s.current_player():  # the options, in words, as their chooser sees them
            for o in s.legal_options():
                text = o.describe()
                leaked = names_hidden & set(text.replace("(", " ").replace(")", " ").split())
                assert not leaked, f"P{p}'s option {text!r} shows hidden cards {sorted(leaked)}"


@pytest.mark.parametrize("path, seeds", PEEK_GAMES)
def test_no_peeking_through_observations(path, seeds):
    if not path.exists():
        pytest.skip(f"{path} is absent")
    g = recycle.load(path)
    checked = 0
    for seed in seeds:
        s = g.new_state(seed=seed)
        draw = players_stream(seed).random
        while not s.is_terminal():
            check_no_peeking(g, s)
            checked += 1
            random_step(s, draw)
    assert checked >= 20


def test_sampled_worlds_are_the_redeal_done_step_by_step(hearts):
    """``sample_world`` works out what to re-deal once per decision and reuses it: each world
    is still exactly a copy re-dealt by ``determinize`` and then reseeded, and an observation
    whose state has moved on plans again."""
    from recycle.engine.knowledge import determinize
    from recycle.players.lookahead import DealRng

    s, _, _ = play_to_after_the_pass(hearts, 3)
    s.apply(0)  # the lead of the two of clubs: now a decision with a choice
    p = s.current_player()
    obs = s.observation(p)
    for moved_on in (False, True):
        if moved_on:  # to p's next turn; obs (the same object) now observes a later decision
            s.apply(0)
            while s.current_player() != p:
                s.apply(0)
        for k in range(3):
            got = obs.sample_world(DealRng(k))
            rng = DealRng(k)
            want = s.clone()
            determinize(want, obs.player, rng, s.known_locations(obs.player))
            want.rng.seed(rng.getrandbits(64))
            # (not env: checking the world's decision lists its options, which binds variables)
            assert got.locs == want.locs and got.card_loc == want.card_loc, f"world {k}"
            assert got.rng.getstate() == want.rng.getstate()
            assert got.locs != s.locs, "nothing was re-dealt"


def test_a_rejected_world_is_dealt_anew_by_the_lookahead_generator(hearts):
    """Who leads the first trick is decided by the two of clubs, which the others do not see.
    A world that deals it away from the leader is rejected and dealt again: with the
    look-ahead players' DealRng too (it once dealt the same world on every retry, so all
    hundred failed and the world returned was impossible)."""
    from recycle.players.lookahead import DealRng

    s, _, hands = play_to_after_the_pass(hearts, 3)
    leader = s.current_player()
    for p in range(4):
        for k in range(6):
            w = s.observation(p).sample_world(DealRng(k))
            assert w.card_loc[two_of_clubs(hearts)] == hands[leader], f"P{p}'s world {k}"
            assert w.num_options() == s.num_options()
