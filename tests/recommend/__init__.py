"""A package, so its modules import their siblings relatively (and mypy finds them)."""
