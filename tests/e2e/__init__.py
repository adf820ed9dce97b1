"""End-to-end tests: the real ``bot.py`` process against a small fake Discord on 127.0.0.1.

``discord_offline.fake_discord`` is the fake (REST API v10 and gateway), ``launch`` starts and stops the bot
process, ``players`` scripts the people who play through the gateway. See docs/e2e.md.
"""
