"""Game records: one game written down so that it can be replayed and read.

A record is a JSON object: the game file (with a hash of its text), the deal number (the
seed: the same seed deals the same cards), the player of each seat, the deal as it stood
at the first decision, and every decision (who chose, which option of how many, in words).
``replay`` plays the recorded decisions back and checks that the game goes exactly the
same way; ``record_text`` gives the human-readable form, like CardShark's game record.
A game stopped before its end (a person quit ``recycle play``) is recorded with
``"unfinished": true``, no scores and no winners; it replays up to where it stopped.

A record is untrusted input (it may come from anyone): its ``"game"`` is a path inside the
record's own folder (or inside the folder given to ``replay --game-folder``) -- an absolute
path, a ``..`` part or a symbolic link leading out of that folder is refused -- and the
file's bytes are hashed and compared with ``"source_sha256"`` before they are parsed, so a
record cannot make ``replay`` read, parse or quote any other file.
"""

from __future__ import annotations


import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path, PureWindowsPath

from ..engine.runner import privileged
from ..errors import RecycleError, printable

FORMAT = "recycle-game-record"
# 2: games deal from SplitMix64 streams (recycle.streams); a version 1 record was dealt by
# Mersenne Twisters, so its seed would deal other cards now
VERSION = 2


def source_hash(game) -> str:
    """The SHA-256 of the game's text (as UTF-8, without a byte-order mark): ``"source_sha256"``."""
    return hashlib.sha256(game.source.text.encode("utf-8")).hexdigest()


def bytes_hash(data: bytes) -> str:
    """The SHA-256 of a game file's bytes as ``source_hash`` counts them (the UTF-8 byte-order
    mark left out, as the reader drops it): the same as ``source_hash`` of the game they
    make, found without parsing them."""
    return hashlib.sha256(data.removeprefix(b"\xef\xbb\xbf")).hexdigest()


class Recorder:
    """Collects a game as it is played: pass ``recorder.on_decision`` to ``PreparedGame.play``."""

    def __init__(self, game):
        self.game = game
        self.decisions: list[dict] = []
        self.deal: dict[str, list[str]] | None = None

    def on_decision(self, state, player, options, index) -> None:
        if self.deal is None:
            self.deal = deal_of(state)
        self.decisions.append(
            {
                "index": state.decisions,
                "player": player,
                "chosen": index,
                "options": len(options),
                "description": options[index].render(-1),
                "revealed": options[index].render(None),
            }
        )

    def finish(self, result, path, players: list[str], max_steps: int) -> dict:
        """The record of the finished game ``result`` (a ``GameResult``)."""
        from ..version import __version__

        from ..engine.game import DEFAULT_MAX_WORK

        g = self.game
        rec = {
            "format": FORMAT,
            "version": VERSION,
            "recycle": __version__,
            "game": str(path),
            "game_name": g.name,
            "source_sha256": source_hash(g),
            "seed": result.seed,
            "players": list(players),
            "max_steps": max_steps,
            "deal": self.deal or deal_of(result.state),
            "decisions": self.decisions,
            "scores": result.scores,
            "ranks": result.ranks,
            "winners": result.winners,
            "steps": result.steps,
            "total_decisions": result.decisions,
        }
        if g.max_work != DEFAULT_MAX_WORK:  # played with --max-work: replayed with it
            rec["max_work"] = g.max_work
        return rec

    def finish_unfinished(self, state, path, players: list[str], max_steps: int) -> dict:
        """The record of a game stopped at a decision of ``state`` (not at its end)."""
        from types import SimpleNamespace

        stopped = SimpleNamespace(
            seed=state.seed, scores=[], ranks=[], winners=[], steps=state.steps, decisions=state.decisions, state=state
        )
        return {**self.finish(stopped, path, players, max_steps), "unfinished": True}


def deal_of(state) -> dict[str, list[str]]:
    """Every non-empty physical location with its cards named (bottom first), all revealed."""
    from ..lang.forms.values import MEMORY

    g = state.game
    out = {}
    for info in g.layout.infos:
        if info.index < len(state.locs) and state.locs[info.index] and info.visibility != MEMORY:
            out[info.label] = [g.card_name(c) for c in state.locs[info.index]]
    return out


def play_recorded(
    game,
    players,
    seed: int,
    path,
    specs: list[str],
    max_steps: int = 100_000,
    describe: bool = False,
    reveal: bool = False,
    timeout: float | None = None,
    engine: str = "auto",
):
    """Play one game and return ``(result, record)``. ``engine``: which engine steps it
    (``PreparedGame.play``: "auto", native code wherever the game builds; the record is the
    same either way, its words and deal the reference twin's); ``result.engine`` says which did."""
    rec = Recorder(game)
    try:
        result = game.play(
            players,
            seed=seed,
            record=True,
            describe=describe,
            reveal=reveal,
            max_steps=max_steps,
            on_decision=rec.on_decision,
            timeout=timeout,
            engine=engine,
        )
    except _RecordEnds as exc:
        exc.recorder = rec
        raise
    return result, rec.finish(result, path, specs, max_steps)


def records_dir() -> Path | None:
    """Where ``recycle play`` saves the record of a game quit without ``--record``:
    ``recycle/records`` in the user's data folder, ``$XDG_DATA_HOME`` (``~/.local/share``
    when unset or not an absolute path, as the XDG rules say); None without a home folder.
    Not the current folder: in a checkout a record there would show in ``git status``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if home.startswith("~"):
            return None  # no home folder (never a folder named "~" in the working one)
        base = os.path.join(home, ".local", "share")
    return Path(base) / "recycle" / "records"


def write_record(record: dict, out: str | Path) -> Path | None:
    """Write ``record`` to ``out``, its game stored as ``replay`` will look for it: a game in
    the record's folder (or below it) by its path from there (``games/hearts.rcy``, with
    ``/`` on every system), so that the record and its game move together; a game elsewhere
    by its file name alone, as ``replay`` looks only inside the record's folder or the one
    named with ``--game-folder``. Returns that folder for a game elsewhere (the game's
    own folder: what to name with ``--game-folder``), None for a game beside the record."""
    out = Path(out)
    out.write_bytes(record_bytes(record, out))
    game = Path(record["game"]).resolve()
    return None if _inside(game, out.resolve().parent) is not None else game.parent


def record_bytes(record: dict, out: str | Path) -> bytes:
    """The bytes ``write_record`` writes to ``out`` (the studio writes them itself, through
    no link: recycle/studio/writes.py)."""
    out = Path(out)
    rec = dict(record)
    game = Path(rec["game"]).resolve()
    inside = _inside(game, out.resolve().parent)
    rec["game"] = inside.as_posix() if inside is not None else game.name
    text = json.dumps(rec, ensure_ascii=False, indent=1) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # a file name that is not UTF-8 (its bytes held as lone surrogates): as \udcXX
        # escapes, which read back as the same name
        return (json.dumps(rec, ensure_ascii=True, indent=1) + "\n").encode("ascii")


def _inside(path: Path, folder: Path):
    """``path`` relative to ``folder`` when it lies inside it (both resolved), else None."""
    try:
        return path.relative_to(folder)
    except ValueError:
        return None


MAX_RECORD_BYTES = 16 * 1024 * 1024
_INT = {"type": "integer"}
_NAT = {"type": "integer", "minimum": 0}
SCHEMA = {
    "type": "object",
    "required": [
        "format",
        "version",
        "game",
        "game_name",
        "source_sha256",
        "seed",
        "players",
        "max_steps",
        "deal",
        "decisions",
        "scores",
        "winners",
    ],
    "properties": {
        "format": {"const": FORMAT},
        "version": {"const": VERSION},
        "recycle": {"type": "string"},
        "game": {"type": "string", "minLength": 1, "maxLength": 4096},
        "game_name": {"type": "string"},
        "source_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "seed": _INT,
        "players": {
            "type": "array",
            "minItems": 1,
            "maxItems": 10,
            "items": {"type": "string", "minLength": 1, "maxLength": 100},
        },
        "max_steps": {"type": "integer", "minimum": 1},
        "max_work": {"type": "integer", "minimum": 1},
        "deal": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "decisions": {
            "type": "array",
            "maxItems": 10_000_000,
            "items": {
                "type": "object",
                "required": ["index", "player", "chosen", "options", "description", "revealed"],
                "properties": {
                    "index": _NAT,
                    "player": _NAT,
                    "chosen": _NAT,
                    "options": {"type": "integer", "minimum": 1},
                    "description": {"type": "string"},
                    "revealed": {"type": "string"},
                },
            },
        },
        "scores": {"type": "array", "items": _INT},
        "ranks": {"type": "array", "items": _INT},
        "winners": {"type": "array", "items": _NAT},
        "steps": _NAT,
        "total_decisions": _NAT,
        "unfinished": {"type": "boolean"},
    },
}


class EarlierGenerator(ValueError):
    """A record of the earlier generator (version 1, Mersenne Twister): a well-formed record
    whose seed now deals other cards, so it cannot be replayed."""


def read_record(path: str | Path) -> dict:
    """Load and check a game record; ``ValueError`` saying what is wrong if it is not one.

    Only a regular file of at most 16 MiB is read; the JSON must match ``SCHEMA`` (with
    integers that are integers, not 7.0 or true) and every decision must choose one of its
    options."""
    import jsonschema

    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise ValueError(f"cannot read game record {path}: {exc.strerror}") from None
    if not p.is_file():
        raise ValueError(f"{path} is not a regular file")
    if st.st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{path} is {st.st_size} bytes, more than a game record may be ({MAX_RECORD_BYTES})")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read game record {path}: {exc}") from None
    except RecursionError:
        raise ValueError(f"{path} nests too deeply to be a game record") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a recycle game record")
    if data.get("version") == 1:
        raise EarlierGenerator(
            f"{path} was recorded with an earlier generator (recycle before the SplitMix "
            "generator) and cannot be replayed: its seed deals other cards now"
        )
    if data.get("version") != VERSION:
        raise ValueError(f"{path}: record version {data.get('version')!r} is not supported (expected {VERSION})")
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data))
    if error is not None:
        where = "/".join(str(k) for k in error.absolute_path) or "the record"
        raise ValueError(f"{path}: {where}: {error.message}")
    for key in ("seed", "max_steps", "max_work"):
        if key in data and type(data[key]) is not int:  # JSON schema counts 7.0 as an integer
            raise ValueError(f"{path}: {key} must be a whole number written without a decimal point, not {data[key]!r}")
    for k, d in enumerate(data["decisions"], 1):
        if not all(type(d[f]) is int for f in ("index", "player", "chosen", "options")):
            raise ValueError(f"{path}: decisions/{k - 1}: numbers must be whole numbers")
        if d["chosen"] >= d["options"]:
            raise ValueError(f"{path}: decision {k} chooses option {d['chosen'] + 1} of {d['options']}")
    return data


def game_path(record: dict, record_path: str | Path | None = None, game_folder: str | Path | None = None) -> Path:
    """Where the recorded game file is: the record's ``"game"`` path read inside
    ``game_folder`` (``replay --game-folder``), else inside the folder of the record's file
    ``record_path`` (else the current folder).

    ``ValueError`` naming the field and the refused path if it would lead out of that
    folder: an absolute path (or, on Windows, a drive), a ``..`` part, or a path that
    resolves elsewhere through a symbolic link. Records are written with ``/``; a ``\\``
    separates parts only where the system says so (on Windows), as elsewhere it is a
    character of a file name (``a\\b.rcy`` is one file inside the folder). Nothing outside the folder is opened (resolving a symbolic link reads
    where it points, and no more); an absolute or '..' path is refused by its text alone."""
    name = record["game"]
    if game_folder is not None:
        folder, whose = Path(game_folder), "the folder named with --game-folder"
    elif record_path is not None:
        folder, whose = Path(record_path).resolve().parent, "the record's folder"
    else:
        folder, whose = Path.cwd(), "the current folder"

    def refuse(why: str):
        raise ValueError(
            f'the record\'s "game" field names {printable(repr(name))}, which is refused: {why}; '
            f"a record's game must be a file inside {whose} ({printable(str(folder))})"
            + ("" if game_folder is not None else ", or in a folder named with --game-folder DIR")
        )

    separators = {"/", os.sep, os.altsep} - {None}
    parts = name
    for sep in separators - {"/"}:
        parts = parts.replace(sep, "/")
    parts = parts.split("/")
    drive = os.name == "nt" and PureWindowsPath(name).drive
    if "\0" in name:
        refuse("it holds a NUL character")
    if name.startswith(tuple(separators)) or drive or Path(name).is_absolute():
        refuse("it is an absolute path" + (" (it names a drive)" if drive else ""))
    if ".." in parts:
        refuse("it goes up out of the folder ('..')")
    try:
        base = folder.resolve(strict=True)
        path = (base / Path(*[p for p in parts if p not in ("", ".")])).resolve()
    except (OSError, RuntimeError) as exc:  # a missing --game-folder, a symbolic-link loop
        raise ValueError(
            f"cannot look for the record's game {printable(repr(name))} in {printable(str(folder))}: "
            f"{getattr(exc, 'strerror', None) or exc}"
        ) from None
    if _inside(path, base) is None:
        refuse(f"a symbolic link leads out of the folder (to {printable(str(path))})")
    return path


@dataclass
class Replay:
    """The outcome of replaying a record."""

    game: object
    result: object
    record: dict
    replayed: dict
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # what played the players' playouts and searches (``engine_use.game_playouts``); which
    # engine stepped the game is ``result.engine``
    playouts: str | None = None

    @property
    def identical(self) -> bool:
        return not self.problems


def replay(
    record: dict,
    game=None,
    record_path=None,
    reveal: bool = False,
    force: bool = False,
    scripted: bool = False,
    max_work: int | None = None,
    game_folder=None,
    engine: str = "auto",
) -> Replay:
    """Play the record's game again — the same game file, deal and players — and compare
    every decision, the deal, the scores and the winners.

    Computer players are run again (the same seed and players always play the same game),
    so a record whose players were changed does not replay; ``scripted`` instead plays the
    recorded choices back without running them (faster; it checks the game's rules, not
    who chose). ``ValueError`` if the game file may not be read (see ``game_path``: it is
    looked for inside ``game_folder``, else the folder of ``record_path``), is not there,
    or is not the recorded one (its hash, compared before the file is parsed, differs;
    ``force`` replays it anyway, with a warning), or the players do not fit the game. The
    game file is loaded with the recorded work budget (``max_work`` overrides it).
    ``engine``: which engine plays it again (``play_recorded``; ``result.engine`` says which did).
    """
    from ..players import ScriptedPlayer, make_player

    warnings = []
    if game is None:
        path = game_path(record, record_path, game_folder)
        game, same = _load_checked(path, record["source_sha256"], max_work or record.get("max_work"), force)
    else:
        same = source_hash(game) == record["source_sha256"]
    if not same:
        if not force:
            raise ValueError(_NOT_RECORDED + "; --force replays it anyway")
        warnings.append("warning: the game file is not the one recorded (--force)")
    specs = record["players"]
    if len(specs) != game.nplayers:
        raise ValueError(f"the record lists {len(specs)} players for a game of {game.nplayers}")
    chosen = [d["chosen"] for d in record["decisions"] if d["options"] > 1]
    unfinished = bool(record.get("unfinished"))
    # an unfinished record stops where the person's recorded choices run out
    stop = _RecordEnds() if unfinished else None
    if scripted:
        script = ScriptedPlayer(chosen, stop)
        players = [script] * game.nplayers
    else:
        players = [_seat(spec, record, seat, make_player, stop) for seat, spec in enumerate(specs)]
    try:
        result, again = play_recorded(
            game,
            players,
            record["seed"],
            record["game"],
            specs,
            record["max_steps"],
            describe=True,
            reveal=reveal,
            engine=engine,
        )
    except _RecordEnds as exc:
        # the game so far counts the decision the record stops at, which was not made: the
        # transcript says how many were made, the count the record and the summary give
        result = replace(exc.partial, decisions=len(exc.recorder.decisions))
        again = {"decisions": exc.recorder.decisions, "deal": exc.recorder.deal or deal_of(result.state)}
    problems = []
    for k, (a, b) in enumerate(zip(record["decisions"], again["decisions"])):
        if a != b:
            problems.append(f"decision {k + 1}: recorded {_short(a)}, replayed {_short(b)}")
            break
    if len(record["decisions"]) != len(again["decisions"]):
        problems.append(f"{len(record['decisions'])} decisions recorded, {len(again['decisions'])} replayed")
    if unfinished and result.scores is not None:
        problems.append(f"the record stops after {len(record['decisions'])} decisions, the replayed game ended")
    for key in ("deal",) if unfinished else ("scores", "winners", "deal"):
        if record.get(key) != again[key]:
            problems.append(f"{key}: recorded {record.get(key)}, replayed {again[key]}")
    from .engine_use import game_playouts

    return Replay(game, result, record, again, problems, warnings, game_playouts(players))


_NOT_RECORDED = "the game file is not the one recorded (its SHA-256 differs)"


def _load_checked(path: Path, sha256: str, max_work, force: bool):
    """``(game, same)``: the game of ``path`` and whether it is the recorded one. Its bytes
    are read (a regular file of bounded size) and hashed first; a file that is not the
    recorded one is not parsed at all unless ``force`` (``ValueError`` then comes from
    ``replay``): a tampered record cannot make recycle parse, and quote, a file it names."""
    from ..engine.game import PreparedGame
    from ..lang.syntax.reader import decode_source, parse_text, read_source

    if not path.exists():
        raise ValueError(
            f"the recorded game file {printable(str(path))} is not there "
            "(--game-folder DIR names the folder that holds it)"
        )
    data = read_source(path)
    same = bytes_hash(data) == sha256
    if not (same or force):
        return None, False
    name = str(path)
    return PreparedGame(parse_text(decode_source(data, name), name), max_work=max_work), same


def _seat(spec: str, record: dict, seat: int, make_player, stop=None):
    """The player of one seat for a replay: its kind run again, or, for a kind that cannot
    be run again (a person), its own recorded choices (then ``stop``, for an unfinished
    record)."""
    if spec.split(":", maxsplit=1)[0] in ("human", "scripted"):
        from ..players import ScriptedPlayer

        own = [d["chosen"] for d in record["decisions"] if d["options"] > 1 and d["player"] == seat]
        return ScriptedPlayer(own, stop)
    try:
        return make_player(spec)
    except ValueError as exc:
        raise ValueError(f"player {seat}: {spec!r} is not a player that can be run: {exc}") from None


@privileged  # it reads nothing: no need to build a player's view for it
class _RecordEnds(RecycleError):
    """Raised (as a player) where an unfinished record stops; ``PreparedGame.play`` attaches
    the game so far (``partial``), and ``recorder`` is set by ``play_recorded``."""

    def __init__(self):
        super().__init__("the record ends here")
        self.recorder = None

    def choose(self, view, options, rng) -> int:
        raise self


def _short(d: dict) -> str:
    return f"P{d['player']} option {d['chosen'] + 1} of {d['options']} ({printable(d['description'])})"


def decision_words(result) -> dict[int, str]:
    """Each decision of a game played with ``describe`` (a replay's ``result``) in the game's
    words, as ``recycle run``'s transcript says it (``swap a card from P0's HAND for Q♠ from
    MIDDLE``), by decision number."""
    return {d.index: d.description for d in result.choices or []}


def record_text(record: dict, reveal: bool = True, words: dict[int, str] | None = None) -> list[str]:
    """The record as a readable game record: deal number, seats, the deal, every decision, result.

    ``words`` (``decision_words`` of a replay of the record, by decision number) says each
    decision in the game's words; without it (or for a decision it lacks) the record's own
    text of the option, the form as written, is shown. Each string of the record is
    ``printable`` (a tampered record's fields could hold escape sequences or line breaks:
    one field stays on its one line)."""
    text = printable
    players = [text(p) for p in record["players"]]
    lines = [
        f"Game record: {text(record['game_name'])} ({text(record['game'])})",
        f"Deal #{record['seed']}",
        "Players: " + ", ".join(f"P{p} {name}" for p, name in enumerate(players)),
    ]
    if reveal and record.get("deal"):
        lines.append("The deal (at the first decision):")
        width = max(len(text(k)) for k in record["deal"])
        for label, cards in record["deal"].items():
            lines.append(f"  {text(label):<{width}}  {text(' '.join(cards))}")
    lines.append("Play:")
    key = "revealed" if reveal else "description"
    width = len(str(len(record["decisions"])))
    for k, d in enumerate(record["decisions"], 1):
        who = players[d["player"]] if d["player"] < len(players) else "?"
        forced = "  (forced)" if d["options"] == 1 else ""
        said = (words or {}).get(d.get("index"), d[key])
        lines.append(f"  {k:>{width}}. P{d['player']} [{who}] {d['chosen'] + 1}/{d['options']}: {text(said)}{forced}")
    if record.get("unfinished"):
        lines.append(f"Unfinished: stopped after {len(record['decisions'])} decisions")
        return lines
    lines.append("Final scores: " + ", ".join(f"P{p} {v}" for p, v in enumerate(record["scores"])))
    w = record["winners"]
    lines.append(f"Winner: P{w[0]}" if len(w) == 1 else "Tie for first: " + ", ".join(f"P{p}" for p in w))
    return lines
