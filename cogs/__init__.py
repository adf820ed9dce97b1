"""The Discord layer: thin cogs that turn interactions into engine actions through the store."""

# Loaded in this order by the bot; a cog that fails to load stops the bot.
EXTENSIONS: tuple[str, ...] = ("cogs.risk",)
