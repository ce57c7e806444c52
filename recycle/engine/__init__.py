"""The engine: compiled games, states stepped from outside, observations, the runner."""
