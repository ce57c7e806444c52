"""The measures of a campaign report: how each is computed from the ``games`` table."""

# (name, SQL expression over a finished game, label); drama uses the cell's mean final spread
MEANS = [
    ("decisions", "decisions", "decisions per game"),
    ("choices", "choices", "choices per game (decisions with 2+ options)"),
    ("rounds", "rounds", "rounds per game"),
    ("steps", "steps", "steps per game"),
    ("lead_changes", "lead_changes", "lead changes"),
    ("decisiveness", "1 - settled_at", "decisiveness (1 - share of the game before the winner is settled)"),
    ("drama", "winner_gap / nullif(scale, 0)", "drama (winner's worst deficit / mean final spread)"),
]
# (name, SQL condition, the column that must be known, label)
RATES = [
    ("ties", "len(winners) > 1", "winners", "ties for first"),
    ("comebacks", "winner_gap > 0", "winner_gap", "comebacks (the winner was behind)"),
]
COMPARED = ["win_rate", "ties", "fairness", "decisions", "rounds", "branching", "lead_changes", "decisiveness", "drama"]
