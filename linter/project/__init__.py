"""Which files a run reads and writes, and what is applied together."""
