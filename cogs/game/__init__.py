"""One channel's game under ``/risk``: the lobby, its control, its status, log, settings and rules."""
