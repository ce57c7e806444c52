"""The result of ``analysis.analyze`` as dataclasses: ``Analysis`` and its parts.

``Analysis.to_dict()`` is the JSON ``recycle analyze --json`` prints, key for key and in the same
order (docs/analysis.md, "The JSON"); ``Analysis.from_dict`` reads it back. Every number is
defined in docs/analysis.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


@dataclass
class Summary:
    """Mean, sample standard deviation, least and greatest of a per-game number."""

    mean: float
    sd: float
    min: float
    max: float


@dataclass
class SeatResult:
    """One seat over the analysed games (win rate with its 95% Wilson interval)."""

    seat: int
    player: str
    win_rate: float
    win_rate_ci: list
    win_share: float
    score_mean: float
    decisions_mean: float
    options_mean: float


@dataclass
class Fairness:
    """How far the seats' wins are from even (chi-square test of the win shares)."""

    win_rate_spread: float
    win_share_spread: float
    chi2: float
    df: int
    p_value: float


@dataclass
class Ties:
    """Games in which two or more sides tied for best, with a 95% Wilson interval."""

    rate: float
    ci: list


@dataclass
class Length:
    """How long the games are."""

    decisions: Summary
    choices: Summary
    rounds: Summary
    steps: Summary
    turns_by_stage_depth: list


@dataclass
class BranchingPoint:
    """Options at one decision number, over the games that reached it."""

    decision: int
    games: int
    mean: float
    p10: float
    p90: float


@dataclass
class Branching:
    """Options per decision, per real choice, by decile of the game and by decision number."""

    options_per_decision: float
    options_per_choice: float
    forced_share: float
    by_decile: list  # float or None per decile
    by_index: list = field(default_factory=list)  # BranchingPoint


@dataclass
class ScoreMeasures:
    """Who leads along the games: lead changes, settling, drama, comebacks."""

    evaluated_share: float
    lead_changes: Summary
    settled_at: float
    decisiveness: float
    drama: float
    comeback_rate: float
    final_spread_mean: float


@dataclass
class Skill:
    """A player seated in turn at every seat against random players."""

    player: str
    games: int
    win_rate: float
    win_rate_ci: list
    random_seat_win_rate: float
    random_seat_win_rate_ci: list
    skill: float
    skill_ci: list


@dataclass
class HiddenInformation:
    """Omniscient against ISMCTS at the same budget: what seeing every card is worth."""

    ismcts: Skill
    omniscient: Skill
    value: float
    value_ci: list


@dataclass
class Analysis:
    """The result of ``analyze`` (``games_detail``: the per-game records, when kept)."""

    game: str
    games: int
    finished: int
    step_limit_hits: int
    seed: int
    players: list
    scoring: str
    values: str
    seats: list  # SeatResult
    fairness: Fairness
    ties: Ties
    length: Length
    branching: Branching
    scores: ScoreMeasures
    skill: Skill | None
    hidden_information: HiddenInformation | None
    seconds: float
    interrupted: bool
    games_detail: list | None
    total_games_played: int
    stopped_by_time_limit: bool
    # what played the games: ``engine`` stepped them (the reference interpreter: their records
    # need each decision's state), ``playouts_engine`` played their look-ahead players' and
    # ``--values``' playouts ("native", "reference", "native and reference", None: none);
    # recycle/study/engine_use.py
    engine: str = "reference"
    playouts_engine: str | None = None

    def to_dict(self, games_detail: bool = True) -> dict:
        """The JSON-ready dict (``recycle analyze --json``'s shape); ``games_detail`` only when
        kept and asked."""
        d = asdict(self)
        if self.games_detail is None or not games_detail:
            d.pop("games_detail")
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Analysis:
        """The dataclass of a summary dict (``to_dict``'s shape)."""
        length = {k: Summary(**v) if isinstance(v, dict) else v for k, v in d["length"].items()}
        br = dict(d["branching"])
        br["by_index"] = [BranchingPoint(**r) for r in br.get("by_index", [])]
        sc = dict(d["scores"])
        sc["lead_changes"] = Summary(**sc["lead_changes"])
        hid = d.get("hidden_information")
        if hid:
            hid = HiddenInformation(Skill(**hid["ismcts"]), Skill(**hid["omniscient"]), hid["value"], hid["value_ci"])
        names = {f.name for f in fields(cls)}
        plain = {k: v for k, v in d.items() if k in names}
        return cls(
            **{
                **plain,
                "seats": [SeatResult(**s) for s in d["seats"]],
                "fairness": Fairness(**d["fairness"]),
                "ties": Ties(**d["ties"]),
                "length": Length(**length),
                "branching": Branching(**br),
                "scores": ScoreMeasures(**sc),
                "skill": Skill(**d["skill"]) if d.get("skill") else None,
                "hidden_information": hid or None,
                "games_detail": d.get("games_detail"),
            }
        )
