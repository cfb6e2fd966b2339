"""JSON Schemas shipped with kqlint (package data)."""
