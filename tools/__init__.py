"""Hand-run tools of the repository (catalogs, map geometry, example pictures); not installed with the bot."""
