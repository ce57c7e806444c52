"""Reading a game without playing it: ``recycle check``'s warnings (``lint``), the counts of
players its deal can serve (``deal_limit``), and variants of its text for another number of
players (``player_count``) or other constants and point maps (``constants``)."""
