"""Index definitions a user's query may give the embedded FalkorDB: the ones it survives.

Why: FalkorDB 4.16 accepts some index definitions it cannot build, and builds an index
again at every start from its definition, so such a definition, once stored, takes down the
server at every start after it: the store never comes back without a backup (found by a
crash hunt through ``scholarkg cypher``):

* ``CREATE FULLTEXT INDEX … OPTIONS {language: 'klingon'}``: accepted (``db.indexes`` even
  says ``english``), then a segfault in the stemmer (``sb_stemmer_new``) at the first node
  indexed, and at every start (upstream FalkorDB issue 2448);
* ``CREATE VECTOR INDEX … OPTIONS {…, M: -1}``: a segfault in ``VecSimIndex_Info`` at
  creation and at every start; a huge ``M`` or ``efConstruction`` asks for tens of gigabytes
  at the first vector indexed;
* an index on a property with an empty name (``ON (n.``)``): an abort in ``IndexField_Init``.

So the text of a user's query is read (every reading :func:`cypher_text.views` makes) for
``CREATE … INDEX`` statements, and one whose options or property names are outside what the
server survives is refused before it is sent (:class:`IndexOptionRefused`). The language
must be one the full-text engine (RediSearch's Snowball stemmers) has, as a string literal;
the HNSW numbers integer literals in the ranges below. Ids the server checks itself
(dimension, similarity function) are left to it. The store's own indexes
(``scholarkg schema``) never pass here.
"""

from __future__ import annotations

from collections.abc import Sequence

from scholarkg.errors import InputError
from scholarkg.store.cypher_text import Token, views

#: the languages RediSearch's stemmer knows (its ``LANGUAGE`` argument); FalkorDB 4.16
#: passes any other name on to the stemmer, which crashes on it
LANGUAGES = frozenset(
    {
        "arabic", "armenian", "basque", "catalan", "chinese", "danish", "dutch", "english",
        "finnish", "french", "german", "greek", "hindi", "hungarian", "indonesian", "irish",
        "italian", "lithuanian", "nepali", "norwegian", "portuguese", "romanian", "russian",
        "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish",
    }
)  # fmt: skip

#: HNSW options (vector indexes): the range each integer must lie in. hnswlib's own
#: guidance is M 2-100 and ef in the hundreds; these bounds leave room above that, and stop
#: at what allocates gigabytes per node
HNSW_RANGES = {"m": (2, 512), "efconstruction": (1, 4096), "efruntime": (1, 4096)}


class IndexOptionRefused(InputError):
    """An index definition the embedded FalkorDB would crash on, at once or at every start."""


def check_index_definitions(query: str) -> None:
    """Raise :class:`IndexOptionRefused` when any reading of ``query`` creates an index the
    server does not survive (module docstring); return quietly otherwise (nearly always:
    a query without ``INDEX`` is read no further)."""
    if "index" not in query.lower():
        return
    for toks in views(query):
        for i, tok in enumerate(toks):
            if tok.is_word("INDEX") and _after_create(toks, i):
                _check_definition(toks, i)


def _after_create(toks: Sequence[Token], i: int) -> bool:
    """Whether the ``INDEX`` at ``i`` follows ``CREATE`` (``CREATE [FULLTEXT|VECTOR|RANGE]
    INDEX``, with an optional name before ``FOR``: the name comes after ``INDEX``)."""
    j = i - 1
    while j >= 0 and toks[j].is_word("FULLTEXT", "VECTOR", "RANGE", "LOOKUP", "TEXT", "POINT"):
        j -= 1
    return j >= 0 and toks[j].is_word("CREATE")


def _check_definition(toks: Sequence[Token], start: int) -> None:
    end = start + 1
    while end < len(toks) and not toks[end].is_word("OPTIONS", "CREATE", "DROP", "MATCH"):
        if toks[end].kind == "quoted" and not toks[end].text and toks[end - 1].is_symbol("."):
            raise IndexOptionRefused(
                "an index on a property with an empty name (``) crashes the embedded "
                "FalkorDB (an abort in IndexField_Init); name the property"
            )
        end += 1
    if end < len(toks) and toks[end].is_word("OPTIONS"):
        for key, value in _options(toks, end + 1).items():
            _check_option(key, value)


def _options(toks: Sequence[Token], i: int) -> dict[str, list[Token]]:
    """The ``{key: value, …}`` map at ``i`` as key (as written) → the value's tokens; a
    nested map or list stays in its value."""
    out: dict[str, list[Token]] = {}
    if i >= len(toks) or not toks[i].is_symbol("{"):
        return out
    i += 1
    while i < len(toks) and not toks[i].is_symbol("}"):
        key = toks[i].text
        i += 2 if i + 1 < len(toks) and toks[i + 1].is_symbol(":") else 1
        value: list[Token] = []
        depth = 0
        while i < len(toks) and not (depth == 0 and toks[i].is_symbol(",}")):
            depth += toks[i].is_symbol("{[(") - toks[i].is_symbol("}])")
            value.append(toks[i])
            i += 1
        out[key] = value
        if i < len(toks) and toks[i].is_symbol(","):
            i += 1
    return out


def _check_option(key: str, value: Sequence[Token]) -> None:
    if key.lower() == "language":
        if len(value) != 1 or value[0].kind != "string":
            raise IndexOptionRefused(
                "give a full-text index's language as a string literal ('english'): the "
                "embedded FalkorDB crashes on a language it does not know, so it is checked "
                "before the query is sent"
            )
        if value[0].text.lower() in LANGUAGES and value[0].text != value[0].text.lower():
            raise IndexOptionRefused(
                f"write the language in lower case ({value[0].text.lower()!r}): the embedded "
                "FalkorDB's full-text engine is given it as written"
            )
        if value[0].text not in LANGUAGES:
            raise IndexOptionRefused(
                f"language {value[0].text!r} is not one the embedded FalkorDB's full-text "
                f"engine knows (it would crash the server at every start); one of: "
                f"{', '.join(sorted(LANGUAGES))}"
            )
    elif key.lower() in HNSW_RANGES:
        low, high = HNSW_RANGES[key.lower()]
        number = _integer(value)
        if number is None or not low <= number <= high:
            raise IndexOptionRefused(
                f"vector index option {key!r} must be an integer literal from {low} to "
                f"{high} on the embedded FalkorDB (other values crash it, or allocate "
                "gigabytes per node)"
            )


def _integer(value: Sequence[Token]) -> int | None:
    """The integer literal ``value`` holds (a sign allowed), else ``None``."""
    sign = 1
    toks = list(value)
    if len(toks) == 2 and toks[0].is_symbol("-+"):
        sign = -1 if toks[0].text == "-" else 1
        toks = toks[1:]
    if len(toks) != 1 or toks[0].kind != "number" or not toks[0].text.isdigit():
        return None
    return sign * int(toks[0].text)
