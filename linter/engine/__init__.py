"""One run: rules loaded and selected, graphs built, rules run, findings suppressed."""
