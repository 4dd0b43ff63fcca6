"""Cypher text read the way the servers read it: for the query limits and the explorer's guard.

A query typed by a user (``scholarkg explore``, ``scholarkg cypher``) is read here before it
reaches a server, for two things:

* its **shape** (:func:`check_shape`): length, nesting depth and, on the embedded FalkorDB,
  the parse cost. FalkorDB's parser takes exponential time in the nesting of expressions
  (brackets, ``CASE``, ``NOT``, signs: 16 levels 0.2-1 s, 20 levels never finish, measured on
  4.16) and no query timeout covers parsing; Neo4j 5.26's parser overflows its stack between
  200 and 300 levels of nested lists. A query over a limit is refused with
  :class:`QueryTooComplex` and never sent.
* the **procedures, functions and SHOW commands it calls** (:func:`read_calls`), which the
  explorer's read-only guard checks by name.

Why a lexer of our own rather than a grammar (docs/decisions.md, "Reading a user's Cypher"):
what matters is what the *server* will run, and the two servers read the same text
differently. Neo4j 5.26 decodes ``\\uXXXX`` escapes everywhere before it tokenises (so
``gds\\u002Egraph\\u002Eproject(...)`` is a call, ``"a\\u0022`` ends a string and
``// \\u000a`` ends a comment), FalkorDB does not; FalkorDB takes `` `db.labels` `` as one
name, Neo4j does not; Neo4j escapes a backtick by doubling it, FalkorDB does not. So the text
is read in every such way (:func:`views`: escapes decoded or not, doubled backticks or not)
and a call found in *any* reading counts. Each reading is lenient where a server would refuse
(an unterminated string or comment is read on as code), and ends a ``//`` comment at the
first of every line end any server knows: it may find a call a server would not run, never
miss one a server would.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise, takewhile
from typing import Literal

from scholarkg.errors import InputError

TokenKind = Literal["word", "quoted", "string", "number", "param", "symbol"]


@dataclass(frozen=True)
class Token:
    """One token: a ``word`` (keyword or plain identifier, as written), a ``quoted``
    (backtick) identifier or a ``string`` (their content, escapes kept), a ``number``, a
    ``param`` (``$name``) or a one-character ``symbol``. Whitespace and comments are not
    tokens."""

    kind: TokenKind
    text: str
    start: int

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words

    def is_symbol(self, chars: str) -> bool:
        return self.kind == "symbol" and self.text in chars


#: every character any server ends a ``//`` comment at (ending it early only shows more code)
LINE_ENDS = "\n\r\u2028\u2029\x85\x0b\x0c"
_UNICODE_ESCAPE = re.compile(r"(\\+)u([0-9A-Fa-f]{4})")


def decode_unicode_escapes(text: str) -> str | None:
    """The text as Neo4j 5.26 reads it: ``\\uXXXX`` decoded wherever it stands (strings,
    names, comments, between tokens), a backslash escaped by another one excepted; ``None``
    when the text holds no such escape. One pass: a decoded backslash starts no new escape."""
    found = False

    def repl(m: re.Match[str]) -> str:
        nonlocal found
        slashes = m.group(1)
        if len(slashes) % 2 == 0:  # ``\\u0041``: an escaped backslash, then ``u0041``
            return m.group(0)
        found = True
        return slashes[:-1] + chr(int(m.group(2), 16))

    decoded = _UNICODE_ESCAPE.sub(repl, text)
    return decoded if found else None


def tokens(text: str, *, doubled_backticks: bool = True) -> list[Token]:
    """The tokens of ``text`` (see :class:`Token`); never raises.

    ``doubled_backticks``: ````` `` ````` inside a backtick name is one backtick (Neo4j) or
    ends the name (FalkorDB). An unterminated string, name or block comment is not skipped:
    its opening character becomes a symbol and reading goes on after it, so what follows is
    read as code.
    """
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace() or c in "\ufeff\u200b":
            i += 1
        elif text.startswith("//", i):
            j = i + 2
            while j < n and text[j] not in LINE_ENDS:
                j += 1
            i = j
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                out.append(Token("symbol", "/", i))
                i += 1
            else:
                i = end + 2
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                out.append(Token("symbol", c, i))
                i += 1
            else:
                out.append(Token("string", text[i + 1 : j], i))
                i = j + 1
        elif c == "`":
            name, end = _backtick_name(text, i, doubled_backticks)
            if end < 0:
                out.append(Token("symbol", "`", i))
                i += 1
            else:
                out.append(Token("quoted", name, i))
                i = end
        elif c == "$":
            j = i + 1
            if j < n and text[j] == "`":
                name, end = _backtick_name(text, j, doubled_backticks)
                if end > 0:
                    out.append(Token("param", name, i))
                    i = end
                    continue
            while j < n and _word_char(text[j]):
                j += 1
            out.append(Token("param", text[i + 1 : j], i) if j > i + 1 else Token("symbol", c, i))
            i = max(j, i + 1)
        elif c.isdigit():
            j = i + 1
            while j < n and (_word_char(text[j]) or (text[j] == "." and text[j - 1] != ".")):
                if text[j] == "." and (j + 1 >= n or not text[j + 1].isdigit()):
                    break
                j += 1
            out.append(Token("number", text[i:j], i))
            i = j
        elif _word_char(c):
            j = i + 1
            while j < n and _word_char(text[j]):
                j += 1
            out.append(Token("word", text[i:j], i))
            i = j
        else:
            out.append(Token("symbol", c, i))
            i += 1
    return out


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _backtick_name(text: str, i: int, doubled: bool) -> tuple[str, int]:
    """The name in the backticks opening at ``i`` and the index after them (-1: no end)."""
    parts: list[str] = []
    j = i + 1
    while True:
        end = text.find("`", j)
        if end < 0:
            return "", -1
        parts.append(text[j:end])
        if doubled and text.startswith("``", end):
            parts.append("`")
            j = end + 2
            continue
        return "".join(parts), end + 1


def views(query: str) -> list[list[Token]]:
    """Every reading of ``query`` a server may make (module docstring): as written and, when
    it holds ``\\uXXXX`` escapes, decoded; each with and without doubled backticks."""
    texts = [query]
    decoded = decode_unicode_escapes(query)
    if decoded is not None:
        texts.append(decoded)
    return [tokens(t, doubled_backticks=d) for t in texts for d in (True, False)]


# -- calls ------------------------------------------------------------------------------------

CallKind = Literal["procedure", "function", "show"]


@dataclass(frozen=True, order=True)
class Call:
    """A procedure (after ``CALL``), a function with a namespace (``gds.graph.project(``),
    or a SHOW command (``name`` is its words, ``SHOW SETTINGS``)."""

    kind: CallKind
    name: str


def _chains(toks: Sequence[Token]) -> Iterator[tuple[int, int, str]]:
    """Dotted names: (first token, token after the last, the parts joined by dots).

    A name part is a word or a backtick name; comments and whitespace between the parts and
    the dots are already gone, so ``gds /* */ . graph.project`` is one chain.
    """
    i, n = 0, len(toks)
    while i < n:
        tok = toks[i]
        starts = tok.kind in ("word", "quoted") and not (i > 0 and toks[i - 1].is_symbol("."))
        if not starts:
            i += 1
            continue
        parts = [tok.text]
        j = i + 1
        while j + 1 < n and toks[j].is_symbol(".") and toks[j + 1].kind in ("word", "quoted"):
            parts.append(toks[j + 1].text)
            j += 2
        yield i, j, ".".join(parts)
        i = j


#: the words after SHOW that name what it lists, and the procedure each SHOW mirrors (the
#: guard applies that procedure's rule); a SHOW not here mirrors nothing on any list
SHOW_MIRRORS: dict[str, str] = {
    "SETTING": "dbms.listConfig",
    "SETTINGS": "dbms.listConfig",
    "TRANSACTION": "dbms.listTransactions",
    "TRANSACTIONS": "dbms.listTransactions",
    "FUNCTION": "dbms.functions",
    "FUNCTIONS": "dbms.functions",
    "PROCEDURE": "dbms.procedures",
    "PROCEDURES": "dbms.procedures",
    "INDEX": "db.indexes",
    "INDEXES": "db.indexes",
    "CONSTRAINT": "db.constraints",
    "CONSTRAINTS": "db.constraints",
}
_SHOW_QUALIFIERS = frozenset(
    {"ALL", "BUILT", "IN", "USER", "DEFINED", "EXECUTABLE", "BY", "CURRENT", "BOOSTED"}
    | {"RANGE", "TEXT", "POINT", "LOOKUP", "FULLTEXT", "VECTOR", "UNIQUE", "NODE"}
    | {"RELATIONSHIP", "REL", "KEY", "EXIST", "EXISTENCE", "PROPERTY", "TYPE", "UNIQUENESS"}
    | {"BTREE"}
)


def _show_words(toks: Sequence[Token], i: int) -> str:
    """``SHOW`` at ``i`` and the words that say what it shows (qualifiers skipped)."""
    words = ["SHOW"]
    for tok in toks[i + 1 :]:
        if tok.kind != "word":
            break
        word = tok.text.upper()
        words.append(word)
        if word not in _SHOW_QUALIFIERS:
            break
    return " ".join(words)


def show_mirror(command: str) -> str | None:
    """The procedure a SHOW command mirrors (``SHOW SETTINGS`` → ``dbms.listConfig``)."""
    return SHOW_MIRRORS.get(command.split()[-1]) if command.startswith("SHOW ") else None


def calls_in(toks: Sequence[Token]) -> set[Call]:
    """The calls one reading shows (see :class:`Call`)."""
    found: set[Call] = set()
    for start, end, name in _chains(toks):
        prev = toks[start - 1] if start > 0 else None
        nxt = toks[end] if end < len(toks) else None
        if prev is not None and prev.is_word("CALL"):
            found.add(Call("procedure", name))
        elif nxt is not None and nxt.is_symbol("(") and "." in name:
            found.add(Call("function", name))
        elif (
            end == start + 1
            and toks[start].is_word("SHOW")
            and nxt is not None
            and nxt.kind == "word"
            and not (prev is not None and (prev.is_word("AS") or prev.is_symbol(".")))
        ):
            found.add(Call("show", _show_words(toks, start)))
    return found


def read_calls(query: str) -> set[Call]:
    """Every procedure, namespaced function and SHOW command any reading of ``query`` calls."""
    found: set[Call] = set()
    for toks in views(query):
        found |= calls_in(toks)
    return found


def procedure_call_count(query: str) -> int:
    """How many ``CALL name`` the reading with the most of them holds (repeats counted)."""
    most = 0
    for toks in views(query):
        count = 0
        for start, _, _ in _chains(toks):
            if start > 0 and toks[start - 1].is_word("CALL"):
                count += 1
        most = max(most, count)
    return most


#: the clauses that make a statement a write
WRITE_WORDS = ("CREATE", "MERGE", "SET", "DELETE", "REMOVE")


@functools.lru_cache(maxsize=256)
def writes(text: str) -> bool:
    """Whether the Cypher ``text`` (a statement without its parameter header) writes: a write
    clause among its words (comments and strings are not words). Cached: the store asks it
    of the same few named statements once a chunk."""
    return any(t.is_word(*WRITE_WORDS) for t in tokens(text))


def has_load_csv(query: str) -> bool:
    """Whether any reading of ``query`` holds ``LOAD CSV`` outside strings and comments."""
    for toks in views(query):
        for a, b in pairwise(toks):
            if a.is_word("LOAD") and b.is_word("CSV"):
                return True
    return False


# -- shape ------------------------------------------------------------------------------------


class QueryTooComplex(InputError):
    """A query over a length, nesting or parse-cost limit: refused before any server sees it."""


@dataclass(frozen=True)
class ShapeLimits:
    """What one backend's parser takes (``check_shape``)."""

    #: the server it protects, for messages
    server: str
    max_chars: int = 100_000
    #: nesting of expressions: brackets, CASE … END, and runs of NOT and signs
    max_depth: int = 100
    #: estimated parse work, Σ 2^depth over every opening (None: the parser is linear)
    max_cost: int | None = None
    #: one sentence on why, for the error
    why: str = ""


_OPEN = "([{"
_CLOSE = ")]}"
#: after these a ``-`` or ``+`` is a sign, not a subtraction
_OPERAND_ENDS = frozenset({"word", "quoted", "string", "number", "param"})
_NOT_OPERAND_WORDS = frozenset(
    {"AND", "OR", "XOR", "NOT", "IN", "IS", "RETURN", "WITH", "WHERE", "WHEN", "THEN", "ELSE"}
    | {"CASE", "UNWIND", "SET", "BY", "SKIP", "LIMIT", "YIELD", "CONTAINS", "STARTS", "ENDS"}
    | {"AS", "DISTINCT", "MATCH", "CREATE", "MERGE", "DELETE", "REMOVE", "ORDER", "OFFSET"}
)


@dataclass(frozen=True)
class Shape:
    """How deep a reading nests and what it costs FalkorDB's parser (``ShapeLimits``)."""

    depth: int
    cost: int


def shape_of(toks: Sequence[Token]) -> Shape:
    """Depth and parse cost of one reading.

    Depth: open brackets and ``CASE`` (closed by ``END``), plus each ``NOT`` or sign that
    applies to what follows (a run of ``NOT NOT NOT`` nests as deep as three brackets, in
    FalkorDB's parser as in its time). Cost: Σ 2^depth over every opening, which tracks
    FalkorDB's parse time (one expression 14 deep ~70 ms, ten of them ~0.7 s; 200 of depth
    10 ~0.9 s, measured on 4.16).
    """
    #: per open level: prefix operators (NOT, signs) waiting for their operand
    pending = [0]
    stack: list[str] = []
    depth = cost = 0

    def opened() -> None:
        nonlocal depth, cost
        level = len(stack) + sum(pending)
        depth = max(depth, level)
        cost += 1 << min(level, 62)

    prev: Token | None = None
    for tok in toks:
        sign = tok.is_symbol("-+") and (
            prev is None
            or (prev.kind == "symbol" and prev.text not in _CLOSE)
            or (prev.kind == "word" and prev.text.upper() in _NOT_OPERAND_WORDS)
        )
        if tok.is_word("NOT") or sign:
            pending[-1] += 1
            opened()
        elif tok.is_symbol(_OPEN) or tok.is_word("CASE"):
            stack.append(tok.text)
            pending.append(0)
            opened()
        elif tok.is_symbol(_CLOSE) or tok.is_word("END"):
            if stack:
                stack.pop()
                pending.pop()
            pending[-1] = 0
        elif tok.kind in _OPERAND_ENDS:
            pending[-1] = 0
        prev = tok
    return Shape(depth=depth, cost=cost)


def check_shape(query: str, limits: ShapeLimits) -> Shape:
    """Refuse (:class:`QueryTooComplex`) a query the server's parser cannot take in time; the
    deepest shape among the readings otherwise. Parameters that a client pastes into the text
    (FalkorDB's ``CYPHER name=value`` header) must be in ``query``."""
    if len(query) > limits.max_chars:
        raise QueryTooComplex(
            f"the query is {len(query):,} characters long; {limits.server} takes at most "
            f"{limits.max_chars:,} from scholarkg (load data with 'scholarkg load', pass "
            "values as parameters)",
        )
    worst = Shape(depth=0, cost=0)
    for toks in views(query):
        shape = shape_of(toks)
        worst = Shape(depth=max(worst.depth, shape.depth), cost=max(worst.cost, shape.cost))
    why = f" ({limits.why})" if limits.why else ""
    if worst.depth > limits.max_depth:
        raise QueryTooComplex(
            f"the query nests {worst.depth} levels deep (brackets, CASE, NOT and signs); "
            f"{limits.server} takes at most {limits.max_depth}{why}",
        )
    if limits.max_cost is not None and worst.cost > limits.max_cost:
        raise QueryTooComplex(
            f"the query holds too many deeply nested expressions for {limits.server}'s "
            f"parser (estimated work {worst.cost:,}, at most {limits.max_cost:,}){why}: "
            "nest less, or split it",
        )
    return worst


# -- syntax one dialect lacks ------------------------------------------------------------------

#: Neo4j 5 subquery expressions: ``COUNT { … }``, ``EXISTS { … }``, ``COLLECT { … }``
SUBQUERY_EXPRESSIONS = ("COUNT", "EXISTS", "COLLECT")


def subquery_expressions(query: str) -> list[str]:
    """``COUNT { }``/``EXISTS { }``/``COLLECT { }`` used in ``query`` (as written), in order."""
    toks = tokens(query)
    found: list[str] = []
    for a, b in pairwise(toks):
        if a.kind == "word" and a.text.upper() in SUBQUERY_EXPRESSIONS and b.is_symbol("{"):
            word = f"{a.text.upper()} {{ }}"
            if word not in found:
                found.append(word)
    return found


def names(calls: Iterable[Call], kind: CallKind) -> list[str]:
    """The names of ``kind`` among ``calls``, sorted."""
    return sorted(c.name for c in calls if c.kind == kind)


def comment_header(query: str, *, max_lines: int = 40) -> str:
    """The ``//`` lines ``query`` starts with (at most ``max_lines``), joined: where a named
    query says what a store may do with it (``// rows-in-one-record: …`` on Neo4j,
    ``// falkordb-joined-rows: …`` on FalkorDB); ``""`` for a query that starts otherwise,
    at the cost of one ``startswith`` (every statement a store runs is asked)."""
    if not query.startswith("//"):
        return ""
    lines = query.split("\n", max_lines)[:max_lines]
    return "\n".join(takewhile(lambda line: line.startswith("//"), lines))
