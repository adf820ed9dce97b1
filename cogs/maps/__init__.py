"""Maps in Discord: a server's own maps, and the map as an attachment for one audience."""
