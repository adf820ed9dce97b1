"""Hand-run tools that build the renderer's committed data (not used at run time)."""
