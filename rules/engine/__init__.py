"""kqlint rules."""
