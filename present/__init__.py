"""What a player reads, for any medium: the words of the catalogs, names escaped for where they are shown, the
lines of events and outcomes, refusals, the verbs of a move, and the maps both front ends ask for. No Discord
here: the Discord layer (``cogs/``) and the live board (``web/``) both speak through this package."""
