"""``/tournament``: a channel's tournament (its commands, the threads its games are played in, and its news)."""
