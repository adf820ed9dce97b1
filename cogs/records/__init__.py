"""What a server remembers: stats, the leaderboard, past games and the end-of-game report."""
