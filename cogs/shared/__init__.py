"""The plumbing of the Discord layer: the announcer and the channel queue, components, guards, errors,
translation, and the services the bot hands the cog."""
