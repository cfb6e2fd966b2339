from kqlint.cli import entry

entry()
