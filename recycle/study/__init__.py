"""Studying games: statistics, analysis, duplicate play, game records, graphs, workers."""
