"""Game records edited by hand, for fuzzing ``read_record`` and ``replay``.

``record_inputs()`` is a Hypothesis strategy that edits a genuine record of one Schwimmen game
(junk values, huge lists, removed or tampered fields); ``exercise_record(data, tampered)``
reads and replays it, and raises ``fuzzing.FuzzFailure`` when recycle breaks its contract (a
crash, a tampered record replayed as identical, an input past the time bound). Used by
``tests/study/test_fuzz_shapes.py`` and ``tools/fuzz.py --kind records``.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from hypothesis import strategies as st

from ..engine.game import loads
from ..errors import RecycleError
from .fuzzing import ROOT, TIME_BOUND, FuzzFailure


RECORD_GAME = ROOT / "games" / "schwimmen.rcy"
RECORD_SEED = 7


def base_record() -> tuple[str, dict]:
    """(the game's text, a genuine record of one game of it, its game path ``game.rcy``)."""
    global _BASE_RECORD
    if _BASE_RECORD is None:
        from ..players import make_players
        from .records import play_recorded

        text = RECORD_GAME.read_text(encoding="utf-8")
        game = loads(text, str(RECORD_GAME))
        players = make_players("random", game.nplayers)
        _, rec = play_recorded(game, players, RECORD_SEED, "game.rcy", ["random"] * game.nplayers)
        _BASE_RECORD = (text, rec)
    text, rec = _BASE_RECORD
    return text, json.loads(json.dumps(rec))


_BASE_RECORD = None
_JUNK = [
    None,
    True,
    7.0,
    -7,
    0,
    -1,
    2**63,
    10**400,
    "",
    "7",
    "x" * 5000,
    [],
    {},
    [1, 2],
    {"a": 1},
    "\u0000",
    "/dev/zero",
    "/",
    ".",
    "..",
    "../../../../etc/passwd",
    "game.rcy\u0000",
    "nonexistent.rcy",
]
# fields whose change must make the replay fail (or be refused): it would otherwise accept tampering
DETERMINING = ("seed", "source_sha256", "decisions", "deal", "scores", "winners")
HUGE_DECISIONS = 4000  # the most decisions a "huge" edit makes (about 600 KB of JSON)


@st.composite
def record_inputs(draw) -> tuple[str, bytes, str]:
    """(a description, the bytes of a record edited by hand, the field it tampers with or "")."""
    _, rec = base_record()
    ops = draw(
        st.lists(
            st.sampled_from(
                [
                    "delete",
                    "junk",
                    "seed",
                    "players",
                    "sha",
                    "decision",
                    "decisions",
                    "game",
                    "nest",
                    "max_steps",
                    "deal",
                    "scores",
                    "bytes",
                    "truncate",
                ]
            ),
            min_size=1,
            max_size=3,
        )
    )
    done = []
    raw = None
    for op in ops:
        keys = sorted(rec) if isinstance(rec, dict) else []
        if op == "delete" and keys:
            k = draw(st.sampled_from(keys))
            del rec[k]
            done.append(f"delete {k}")
        elif op == "junk" and keys:
            k = draw(st.sampled_from(keys))
            rec[k] = draw(st.sampled_from(_JUNK))
            done.append(f"{k}={str(rec[k])[:20]!r}")
        elif op == "seed" and isinstance(rec, dict):
            rec["seed"] = draw(
                st.sampled_from(
                    [-RECORD_SEED, RECORD_SEED + 1, float(RECORD_SEED), str(RECORD_SEED), 2**64 + RECORD_SEED, -(2**63)]
                )
            )
            done.append(f"seed={rec['seed']!r}")
        elif op == "players" and isinstance(rec, dict):
            pl = rec.get("players")
            choice = draw(st.sampled_from(["shorten", "longer", "greedy", "unknown", "budget", "empty", "type"]))
            if choice == "shorten" and isinstance(pl, list) and pl:
                rec["players"] = pl[:-1]
            elif choice == "longer" and isinstance(pl, list):
                rec["players"] = pl + ["random"]
            elif choice == "greedy" and isinstance(pl, list) and pl:
                rec["players"] = ["greedy"] + pl[1:]
            elif choice == "unknown" and isinstance(pl, list) and pl:
                rec["players"] = ["nobody"] + pl[1:]
            elif choice == "budget" and isinstance(pl, list) and pl:
                rec["players"] = [
                    draw(st.sampled_from(["pimc:0", "pimc:-1", "ismcts:99999999", "random:3", "pimc:1e9"]))
                ] + pl[1:]
            elif choice == "empty":
                rec["players"] = []
            else:
                rec["players"] = "random"
            done.append(f"players {choice}")
        elif op == "sha" and isinstance(rec, dict):
            rec["source_sha256"] = draw(st.sampled_from(["0" * 64, "f" * 64, "", "0" * 63, "G" * 64]))
            done.append("sha")
        elif op == "decision" and isinstance(rec, dict) and isinstance(rec.get("decisions"), list) and rec["decisions"]:
            k = draw(st.integers(0, len(rec["decisions"]) - 1))
            d = rec["decisions"][k]
            if isinstance(d, dict):
                field = draw(st.sampled_from(["chosen", "options", "player", "index", "description", "revealed"]))
                value = draw(st.sampled_from([-1, 0, 1, 2, 10**6, 2**64, 1.0, "1", None, [], "x"]))
                if d.get(field) != value:
                    d[field] = value
                done.append(f"decisions/{k}/{field}={value!r}")
        elif op == "decisions" and isinstance(rec, dict) and isinstance(rec.get("decisions"), list):
            how = draw(st.sampled_from(["drop-last", "drop-first", "double", "empty", "reverse", "huge"]))
            d = rec["decisions"]
            # "huge": 200 times over, but never past HUGE_DECISIONS (two "huge" edits made a
            # 90 MB record, three would make 18 GB)
            new = {
                "drop-last": d[:-1],
                "drop-first": d[1:],
                "double": d + d,
                "empty": [],
                "reverse": d[::-1],
                "huge": d * max(1, min(200, HUGE_DECISIONS // max(1, len(d)))),
            }[how]
            if new != d:
                rec["decisions"] = new
            done.append(f"decisions {how}")
        elif op == "game" and isinstance(rec, dict):
            rec["game"] = draw(
                st.sampled_from(
                    [
                        "/dev/zero",
                        "/dev/null",
                        "/",
                        ".",
                        "missing.rcy",
                        "game.rcy/",
                        "./game.rcy",
                        "a" * 5000,
                        "game.json",
                        "/proc/self/mem",
                    ]
                )
            )
            done.append(f"game={rec['game'][:20]!r}")
        elif op == "nest":
            depth = draw(st.sampled_from([100, 1000, 100_000]))
            raw = ("[" * depth + "]" * depth).encode()
            if draw(st.booleans()):
                raw = (
                    '{"format": "recycle-game-record", "version": 1, "decisions": ' + "[" * depth + "]" * depth + "}"
                ).encode()
            done.append(f"nest {depth}")
        elif op == "max_steps" and isinstance(rec, dict):
            rec["max_steps"] = draw(st.sampled_from([0, 1, 2, -5, 10**12, 2**63]))
            done.append(f"max_steps={rec['max_steps']}")
        elif op == "deal" and isinstance(rec, dict) and isinstance(rec.get("deal"), dict) and rec["deal"]:
            k = draw(st.sampled_from(sorted(rec["deal"])))
            rec["deal"][k] = list(reversed(rec["deal"][k])) if len(rec["deal"][k]) > 1 else ["nope"]
            done.append(f"deal {k}")
        elif op == "scores" and isinstance(rec, dict) and isinstance(rec.get("scores"), list) and rec["scores"]:
            rec["scores"] = [s + 1 if isinstance(s, int) else 0 for s in rec["scores"]]
            done.append("scores")
        elif op == "bytes":
            body = raw if raw is not None else json.dumps(rec, ensure_ascii=False).encode("utf-8")
            at = draw(st.integers(0, len(body)))
            raw = (
                body[:at]
                + draw(st.sampled_from([b"\xff", b"\x00", b"\xef\xbb\xbf", b"}", b"{", b",", b"\\"]))
                + body[at:]
            )
            done.append(f"bytes@{at}")
        elif op == "truncate":
            body = raw if raw is not None else json.dumps(rec, ensure_ascii=False).encode("utf-8")
            raw = body[: draw(st.integers(0, len(body)))]
            done.append("truncate")
    if raw is None:
        raw = json.dumps(rec, ensure_ascii=False).encode("utf-8")
    try:  # what the record says once read (edited bytes may still be JSON)
        final = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        final = None
    return f"record: {', '.join(done) or 'unchanged'}", raw, tampered_field(final)


def tampered_field(rec) -> str:
    """The first field that determines the game which ``rec`` changed from the genuine
    record ("" if none: e.g. an edit undone by another)."""
    _, orig = base_record()
    if not isinstance(rec, dict):
        return ""
    for k in DETERMINING:
        if k in rec and json.dumps(rec[k], sort_keys=True) != json.dumps(orig[k], sort_keys=True):
            return k
    if isinstance(rec.get("players"), list) and len(rec["players"]) != len(orig["players"]):
        return "players"
    return ""


def exercise_record(data: bytes, tampered: str = "", time_bound: float | None = TIME_BOUND) -> str:
    """Write ``data`` as a record beside the recorded game, then read it (``read_record``),
    replay it (scripted, then with its players run again) and print it (``record_text``).

    Returns "refused" (``ValueError``: not a valid record, or it cannot be replayed), "error"
    (the game stopped on a ``RecycleError``), "differs" (the replay reports problems) or
    "identical". Raises ``FuzzFailure``: a crash (any other exception), a record that tampers
    with what determines the game yet replays as identical, or a slow input."""
    from .records import read_record, record_text, replay

    t0 = time.perf_counter()
    text, _ = base_record()
    with tempfile.TemporaryDirectory(prefix="recycle-fuzz-") as tmp:
        (Path(tmp) / "game.rcy").write_text(text, encoding="utf-8")
        path = Path(tmp) / "record.json"
        path.write_bytes(data)
        try:
            try:
                rec = read_record(path)
            except ValueError:
                return _timed(t0, time_bound, "refused")
            record_text(rec, reveal=True)
            record_text(rec, reveal=False)
            outcome = "identical"
            for scripted in (True, False):
                try:
                    rp = replay(rec, record_path=path, scripted=scripted)
                except (ValueError, OSError):
                    return _timed(t0, time_bound, "refused")
                except RecycleError:
                    return _timed(t0, time_bound, "error")
                if not rp.identical:
                    outcome = "differs"
                elif tampered:
                    raise FuzzFailure(
                        f"tampering accepted: the record changes {tampered} and "
                        f"replays as identical ({'scripted' if scripted else 'players run again'})"
                    )
        except FuzzFailure:
            raise
        except Exception as exc:
            raise FuzzFailure(f"crash: {type(exc).__name__}: {str(exc)[:300]}") from exc
    return _timed(t0, time_bound, outcome)


def _timed(t0: float, time_bound: float | None, outcome: str) -> str:
    dt = time.perf_counter() - t0
    if time_bound is not None and dt > time_bound:
        raise FuzzFailure(f"slow: {dt:.1f} s (bound {time_bound} s), outcome {outcome}")
    return outcome
