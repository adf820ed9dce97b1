"""A turn: the moves, the turn panel, the taps on its buttons and menus, the territory options."""
