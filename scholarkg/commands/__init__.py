"""CLI sub-apps, one module per verb group; ``cli.py`` registers them explicitly."""
