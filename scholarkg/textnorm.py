"""Normalised text keys: the one rule that decides when two names or titles are the same.

A base module (it imports nothing from scholarkg) because two layers that must not depend on
each other need the same rule: the schema's ids (``schema/ids.py``: a paper without an arXiv id
or DOI is keyed by its normalised title, a Task or Dataset by its normalised name) and the pure
metrics (``benchmark/metrics/ranking.py``: LEGOBench's ``normalized`` matcher finds a title in
an LLM's answer by the same key). Changing it changes stored ids: ``tests/core`` pins them.
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^\w\s]", re.UNICODE)


def normalize_text(text: str) -> str:
    """NFKC, case-folded, punctuation removed, whitespace collapsed: for names and titles.

    Word characters (letters, digits, ``_``) are kept; everything else becomes a space.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _NON_WORD.sub(" ", text)
    return _SPACE.sub(" ", text).strip()
