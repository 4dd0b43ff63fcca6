"""The GDS manual's PageRank example graph (the Neo4j GDS manual, PageRank), shared by the offline
GDS-fixture tests (``tests/graphalgo``) and the live Neo4j tests (``tests/neo4j``), so both
check the same edges against the same published scores.

Edges are ``(source page, target page, weight)``; the graph has 8 pages and 14 links.
"""

from __future__ import annotations

PAGES = ["Home", "About", "Product", "Links", "Site A", "Site B", "Site C", "Site D"]
LINKS = [
    ("Home", "About", 0.2),
    ("Home", "Links", 0.2),
    ("Home", "Product", 0.6),
    ("About", "Home", 1.0),
    ("Product", "Home", 1.0),
    ("Site A", "Home", 1.0),
    ("Site B", "Home", 1.0),
    ("Site C", "Home", 1.0),
    ("Site D", "Home", 1.0),
    ("Links", "Home", 0.8),
    ("Links", "Site A", 0.05),
    ("Links", "Site B", 0.05),
    ("Links", "Site C", 0.05),
    ("Links", "Site D", 0.05),
]
