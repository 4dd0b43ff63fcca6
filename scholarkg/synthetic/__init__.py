"""Synthetic corpora in the benchmarks' real file formats, with known ground truth.

Used by the tests and by ``make demo``; every word in them is invented here, so the repo
carries no third-party dataset content.
"""
