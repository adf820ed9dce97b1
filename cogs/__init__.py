"""The Discord layer: thin cogs that parse interactions, check who may act, call the table and announce.

Grouped in rooms by feature (``play``, ``game``, ``records``, ``maps``) with the shared plumbing apart
(``shared``); ``risk.py`` assembles the cog."""

# Loaded in this order by the bot; a cog that fails to load stops the bot.
EXTENSIONS: tuple[str, ...] = ("cogs.risk",)
