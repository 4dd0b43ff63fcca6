"""The citation-recommendation family: citeBench diagnostics and BEIR-layout retrieval."""
