"""The one generator of every engine (recycle/streams.py): SplitMix64 in counter mode.

Its values are the published SplitMix64 ones (so the native engine can check itself against
them too), and a game's chance and players' streams follow from its seed alone."""

from __future__ import annotations

import pickle

import recycle
from recycle.engine.game import players_stream, rollout_seed
from recycle.streams import CHANCE, MASK, PLAYERS, Stream, fold, mix64, stream_key

from ..conftest import GAMES

# the first outputs of SplitMix64 seeded with 0 and with 1234567 (Vigna's splitmix64.c)
SEED_0 = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC]
SEED_1234567 = [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_known_splitmix64_values():
    s = Stream(0)
    assert [s.next64() for _ in range(4)] == SEED_0
    s = Stream(1234567)
    assert [s.next64() for _ in range(3)] == SEED_1234567
    assert Stream.keyed(1234567).next64() == SEED_1234567[0]


def test_random_is_the_top_53_bits_of_a_draw():
    a, b = Stream(0), Stream(0)
    for want in SEED_0:
        x = a.random()
        assert x == (want >> 11) / 2**53
        assert 0.0 <= x < 1.0
        assert b.getrandbits(53) == want >> 11


def test_getrandbits():
    s = Stream(0)
    assert s.getrandbits(64) == SEED_0[0]
    assert s.getrandbits(1) == SEED_0[1] >> 63
    assert s.getrandbits(0) == 0 and s.count == 2  # no bits, no draw
    # wider than 64 bits: whole draws, the lowest bits first (as random.Random)
    assert Stream(0).getrandbits(100) == (SEED_0[0] | SEED_0[1] << 64) & ((1 << 100) - 1)
    assert Stream(0).getrandbits(128) == SEED_0[0] | SEED_0[1] << 64


def test_seeds_fold_to_keys():
    assert fold(5) == 5 and fold(MASK) == MASK
    assert len({fold(-1), fold(1), fold(1 << 64), fold("1"), fold(b"2")}) == 5
    assert fold("1") == fold(b"1")  # text is its UTF-8 bytes
    assert Stream(-1).next64() != Stream(1).next64()  # random.Random deals -1 as 1; not here
    assert mix64(0) == 0 and mix64(1) != 1


def test_state_round_trip():
    s = Stream(42)
    for _ in range(3):
        s.random()
    state = s.getstate()
    ahead = [s.random() for _ in range(5)]
    s.setstate(state)
    assert [s.random() for _ in range(5)] == ahead
    t = Stream(7)
    t.setstate(state)
    assert t.getstate() == state
    c = Stream(42)
    c.setstate(state)
    d = c.copy()
    assert [c.random() for _ in range(5)] == [d.random() for _ in range(5)] == ahead


def test_pickling_keeps_the_place():
    s = Stream(9)
    s.random()
    t = pickle.loads(pickle.dumps(s))
    assert type(t) is Stream and t.getstate() == s.getstate()
    assert [t.next64() for _ in range(3)] == [s.next64() for _ in range(3)]


def test_the_chance_and_players_streams_of_a_game_differ():
    for seed in (0, 1, 7, -1, 2**63):
        chance, players = Stream.for_game(seed, CHANCE), Stream.for_game(seed, PLAYERS)
        assert chance.key == stream_key(seed, CHANCE) != players.key == stream_key(seed, PLAYERS)
        a, b = [chance.next64() for _ in range(8)], [players.next64() for _ in range(8)]
        assert not set(a) & set(b)
        assert players_stream(seed).getstate() == Stream.for_game(seed, PLAYERS).getstate()


def test_rollouts_have_independent_streams():
    keys = set()
    draws = []
    for i in range(50):
        seed = rollout_seed(3, i)
        for purpose in (CHANCE, PLAYERS):
            s = Stream.for_game(seed, purpose)
            keys.add(s.key)
            draws.append(tuple(s.next64() for _ in range(4)))
    assert len(keys) == 100 and len(set(draws)) == 100
    # no stream is another one shifted by a few draws (the keys are far apart)
    firsts = {d[0] for d in draws}
    assert not firsts & {x for d in draws for x in d[1:]}


def test_a_game_replays_identically_from_its_seed():
    g = recycle.load(GAMES / "schwimmen.rcy")
    a, b = g.play(seed=11, record=True), g.play(seed=11, record=True)
    assert a.scores == b.scores and a.events == b.events
    assert [(d.player, d.chosen) for d in a.choices] == [(d.player, d.chosen) for d in b.choices]
    r = g.random_rollout(11)
    assert r.scores == a.scores and r.decisions == a.decisions
    # the players' stream is apart from the deal: another seed's players, the same cards
    s, t = g.new_state(seed=11), g.new_state(seed=11)
    assert s.locs == t.locs and s.rng.getstate() == t.rng.getstate()
    assert s.rng.key == stream_key(11, CHANCE)


def test_a_clone_continues_the_same_stream():
    g = recycle.load(GAMES / "schwimmen.rcy")
    s = g.new_state(seed=4)
    c = s.clone()
    assert c.rng is not s.rng and c.rng.getstate() == s.rng.getstate()
    c.rng.random()
    assert c.rng.getstate() != s.rng.getstate()


def test_inside_a_game_every_draw_is_random_times_n():
    """The native engine reproduces one kind of draw, ``int(random() * n)``: no form's closure
    may draw otherwise from the game's generator (``s.rng``). Sampling
    worlds (engine/knowledge.py, ``rng.shuffle``) is outside a game and may."""
    import re
    from pathlib import Path

    lang = Path(recycle.__file__).parent / "lang"
    other = re.compile(r"rng\.(randrange|randint|choice|choices|sample|shuffle|getrandbits|uniform)\b")
    found = [f"{p.name}: {m.group(0)}" for p in sorted(lang.rglob("*.py")) for m in other.finditer(p.read_text())]
    assert found == []
    assert "tied[int(s.rng.random() * len(tied))]" in (lang / "forms" / "form_card_picks.py").read_text()


def test_a_families_deal_depends_on_its_key_and_itself_alone():
    """DealRng (the look-ahead players' re-deal): each deck family gets a stream keyed by the
    key and the family, so one family's deal does not shift when another's size changes; a
    family dealt again by the same generator (a rejected world) is dealt otherwise."""
    from recycle.players.lookahead import DealRng

    hearts, spades = list(range(13)), list(range(13, 26))
    a, b = DealRng(77), DealRng(77)
    first = spades[:]
    a.shuffle(hearts[:5])
    a.shuffle(first)
    second = spades[:]
    b.shuffle(hearts[:9])  # another size of the other family
    b.shuffle(second)
    assert first == second != spades and sorted(first) == spades
    again = spades[:]
    a.shuffle(again)
    assert again != first and sorted(again) == spades
    other = spades[:]
    DealRng(78).shuffle(other)
    assert other != first
    # its own draws (a sampled world's future) are the stream of its key
    assert DealRng(77).next64() == Stream.keyed(77).next64()


def test_a_clone_given_a_mersenne_twister_can_be_cloned_again():
    """clone(rng=r) takes any random.Random (the API allows it); cloning that copy again
    copies r at its point rather than failing."""
    import random

    s = recycle.load(GAMES / "schwimmen.rcy").new_state(seed=4)
    c = s.clone(rng=random.Random(3))
    d = c.clone()
    assert type(d.rng) is random.Random and d.rng is not c.rng
    assert [d.rng.random() for _ in range(3)] == [c.rng.random() for _ in range(3)]


def test_a_run_of_draws_is_the_same_floats_one_at_a_time_or_at_once():
    # runs of 16 and more are computed with NumPy: the same floats, and the stream moves on alike
    for n in (1, 15, 16, 17, 39, 64, 1000):
        one, run = Stream(n), Stream(n)
        one.random()
        run.random()
        assert run.randoms(n) == [one.random() for _ in range(n)], n
        assert run.count == one.count == n + 1
        assert run.random() == one.random()


def test_one_game_on_the_reference_interpreter_does_not_import_numpy():
    """A shuffle is a run of 52 draws; NumPy (a tenth of a second to import, a third of
    ``recycle run``'s start) is imported for runs only once 50,000 draws one at a time repay it."""
    import subprocess
    import sys

    from ..conftest import ROOT

    code = (
        "import sys, recycle\n"
        f"g = recycle.load({str(GAMES / 'hearts.rcy')!r})\n"
        "g.random_rollout(3)\n"
        "print('numpy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]
