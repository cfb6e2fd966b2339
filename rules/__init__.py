"""Built-in rules, one module per rule, grouped by family (the code's hundreds digit)."""
