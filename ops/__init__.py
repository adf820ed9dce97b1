"""Running the bot for a community: its health and readiness, its Prometheus metrics, its logs (docs/deploy.md).

``ops.metrics`` owns every metric object and the one-line hooks the layers call (it knows no Discord and imports
nothing of the house, so any layer may use it); ``ops.server`` is the small HTTP listener of ``[ops] listen``
(``/healthz``, ``/readyz``, ``/metrics``); ``ops.logs`` formats the log as JSON lines with the ids of what is
being handled; ``ops.probes`` is what the listener asks of the running bot.
"""
