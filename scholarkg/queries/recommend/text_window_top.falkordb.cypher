// The highest internal node id of a Paper (where text_window's windows stop). FalkorDB only.
MATCH (p:Paper)
RETURN max(id(p)) AS top
