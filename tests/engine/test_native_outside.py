"""The native engine behind the State API (recycle/native/outside.py), against the reference
interpreter's State: random paths stepped through both with the same choices, compared at every
decision: every player's observation (each location's cards as that player may see them, the
counts, the storages, the cards known, the player to move), the options (count, words, keys),
and at the end the returns and winners. Clones taken along the way play on without changing
their originals. What a player receives holds no path to the native state."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.engine.public import public_options
from recycle.errors import RecycleError
from recycle.native import NativeUnsupported, available
from recycle.native.outside import OutsideState, Seen, start_outside
from recycle.streams import Stream

from ..conftest import CORPUS, FAST_CORPUS, GAMES, requires_corpus, tiny

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

STEPPED = sorted(GAMES.glob("*.rcy"))
LONG = ("hearts", "whist", "schwimmen-lives")


def _observed(obs) -> dict:
    """Everything an Observation tells, as plain values."""
    n = len(obs.game.layout.infos)
    return {
        "player": obs.player,
        "to move": obs.current_player,
        "locations": obs.locations(),
        "cards": [obs.cards(i) for i in range(n)],
        "counts": [obs.count(i) for i in range(n)],
        "can see": [obs.can_see(i) for i in range(n)],
        "known": obs.known_cards(),
        "known places": obs.known_locations(),
        "ints": obs.ints(),
        "strs": obs.strs(),
        "decisions": obs.decisions_so_far,
        "text": repr(obs),
    }


def _difference(ps, os_, where: str) -> str | None:
    """The first difference of the reference ``ps`` and the OutsideState ``os_``, or None."""
    if ps.is_terminal() != os_.is_terminal():
        return f"{where}: ended in one engine only"
    nplayers = ps.game.nplayers
    if ps.is_terminal():
        if (ps.returns(), ps.winners()) != (os_.returns(), os_.winners()):
            return f"{where}: returns {ps.returns()} != {os_.returns()}"
        return None
    if (ps.num_options(), ps.current_player()) != (os_.num_options(), os_.current_player()):
        return f"{where}: options or player to move differ"
    for p in range(nplayers):
        mine, theirs = _observed(ps.observation(p)), _observed(os_.observation(p))
        if mine != theirs:
            bad = [k for k in mine if mine[k] != theirs[k]]
            return f"{where}: P{p}'s observation differs in {bad}"
    p = ps.current_player()
    words = [o.words for o in public_options(ps, ps.legal_options())]
    if words != [o.words for o in public_options(os_, os_.legal_options())]:
        return f"{where}: the options' words differ"
    if [o.key for o in ps.legal_options()] != [o.key for o in os_.legal_options()]:
        return f"{where}: the options' keys differ"
    if p != os_.current_player():
        return f"{where}: player to move"
    return None


def _walk(ps, os_, rng, label: str, limit: int, branch: bool) -> tuple[str | None, int]:
    k = 0
    while k < limit:
        diff = _difference(ps, os_, f"{label}, decision {k}")
        if diff is not None or ps.is_terminal():
            return diff, k
        if branch and rng.random() < 0.15:
            diff, _ = _walk(ps.clone(), os_.clone(), rng, f"{label}, a clone at decision {k}", 3, False)
            diff = diff or _difference(ps, os_, f"{label}, decision {k} after its clone played on")
            if diff is not None:
                return diff, k
        i = int(rng.random() * ps.num_options())
        ps.apply(i)
        os_.apply(i)
        k += 1
    return None, k


def _agree(game, seeds, limit, track: bool = False) -> int:
    decisions = 0
    for seed in seeds:
        try:
            ps = game.new_state(seed, track=track)
        except RecycleError:
            continue
        os_ = start_outside(game, seed, track=track)
        diff, k = _walk(ps, os_, Stream(seed + 1), f"seed {seed}", limit, True)
        assert diff is None
        decisions += k
    return decisions


def _native(path):
    game = recycle.load(path)
    try:
        start_outside(game, 0)
    except NativeUnsupported:
        pytest.skip(f"{path.name} is not native")
    return game


@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_games_observe_alike_natively(path):
    game = _native(path)
    assert _agree(game, range(3), 8 if path.stem in LONG else 30) > 0 or path.stem == "war"


@pytest.mark.slow
@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_games_observe_alike_natively_to_their_end(path):
    _agree(_native(path), range(3, 23), 100_000)


@pytest.mark.parametrize("name", ["golf-six", "go-fish"])
def test_tracked_observations_are_alike_natively(name):
    # what each player observed earlier (cards seen face up, then turned down) comes from the twin
    assert _agree(_native(GAMES / f"{name}.rcy"), range(2), 20, track=True) > 0


@requires_corpus()
@pytest.mark.parametrize("name", FAST_CORPUS)
def test_corpus_sample_observes_alike_natively(name):
    assert _agree(recycle.load(CORPUS / f"{name}.rcy"), range(3), 12) > 0


def test_an_observation_holds_no_path_to_the_native_state():
    game = recycle.load(GAMES / "hearts.rcy")
    s = start_outside(game, 3)
    obs = s.observation(1)
    seen = obs._state
    assert type(seen) is Seen
    held = [getattr(seen, k) for k in Seen.__slots__]
    assert not any(isinstance(x, OutsideState) for x in held)
    assert not hasattr(seen, "seed") and not hasattr(seen, "rng")
    with pytest.raises(TypeError, match="deals no world"):
        obs.sample_world(Stream(1))
    # another player's hand shows as counts only
    hand = game.layout.find(0, "iloc", "HAND")
    assert obs.cards(hand) == [None] * 13


def test_a_rule_broken_natively_raises_the_reference_message_at_the_same_apply():
    game = tiny(
        """(stage player (end (== 0 (size (game iloc STOCK))))
  (choice ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
           (repeat 4 (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))))))"""
    )
    ps, os_ = game.new_state(1), start_outside(game, 1)
    ps.apply(1)
    os_.apply(1)
    with pytest.raises(RecycleError) as want:
        ps.apply(1)
    with pytest.raises(RecycleError) as got:
        os_.apply(1)
    assert str(got.value) == str(want.value)
    assert os_.engine == "reference"


@pytest.mark.parametrize("name", ["schwimmen", "golf-six", "hearts"])
def test_environment_vectors_and_masks_are_alike_natively(name):
    # (the vector's one-hot of the waiting choice: the native module numbers its choices)
    from recycle.env.spec import spec_for

    spec = spec_for(GAMES / f"{name}.rcy")
    ps, os_ = spec.game.new_state(5), start_outside(spec.game, 5)
    rng = Stream(6)
    for _ in range(40):
        for p in range(spec.nplayers):
            assert (spec.vector(ps, p) == spec.vector(os_, p)).all()
            assert (spec.mask(ps, p) == spec.mask(os_, p)).all()
        if ps.is_terminal():
            break
        assert os_._twin is None  # (all natively until the end: no reference twin was made)
        i = int(rng.random() * ps.num_options())
        ps.apply(i)
        os_.apply(i)
