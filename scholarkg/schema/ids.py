"""Stable ids: the one place that decides what makes two records the same node.

Every node has an ``id`` property that loads MERGE on, so loading the same file twice,
or the same paper from two sources, yields one node. Rules, in priority order:

=================  ==========================================================
record             id
=================  ==========================================================
Paper              ``arxiv:<id>`` (version suffix dropped, old-style ids kept as
                   ``arxiv:hep-th/9901001``) > ``doi:<lower-cased DOI>`` >
                   ``s2:<corpus id>`` > ``openalex:<W id>`` >
                   ``paper:<hash of normalised title + year>``; ids written bare in
                   collection/leaderboard files: :func:`paper_ref_id` (``apc:<id>``)
Author             ``orcid:<ORCID>`` > ``s2author:<id>`` > ``openalexauthor:<A id>``
                   > ``author:<hash of
                   normalised name>`` (homonyms merge; supply an ORCID to split)
Venue, Task,       ``<kind>:<normalised name>`` (names are the identity in Papers
Dataset, Metric,   with Code and in the benchmarks)
Method
Result             ``result:<hash(paper, method, dataset, task, metric)>``
Leaderboard        ``lb:<hash(task, dataset, metric)>``
CitationContext    ``cite:<hash(citing, cited, sentence)>`` or the source's own id
Query / Aspect /   ``<kind>:<source>:<source id>`` (benchmark-scoped; DORIS-MAE
Review / ...       and AAAR ids are only unique within their benchmark)
=================  ==========================================================

Hashes are the first 16 hex digits of SHA-256 over ``\\x1f``-joined normalised parts:
64 bits keep collisions negligible for tens of millions of nodes and ids short.
"""

from __future__ import annotations

import hashlib
import re

from scholarkg.schema.text import key_too_long
from scholarkg.textnorm import normalize_text as normalize_text

_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_ARXIV_OLD = re.compile(r"^([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?$")
_ARXIV_PREFIX = re.compile(r"^(?:arxiv:|https?://arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
#: how a DOI is written before its ``10.``: ``doi:``, a doi.org URL, or ACM's own resolver
#: (``http://doi.acm.org/10.1145/…``, which older ACM Digital Library exports write in the
#: ``doi`` field of a .bib: a real JabRef test file holds a dozen)
_DOI_PREFIX = re.compile(
    r"^(?:doi:\s*|https?://(?:(?:dx|www)\.)?doi\.org/|https?://doi\.acm\.org/)", re.IGNORECASE
)
_SPACE = re.compile(r"\s+")


def content_hash(*parts: object, length: int = 16) -> str:
    """Hex SHA-256 prefix over the parts (``None`` → empty), joined with a unit separator."""
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def normalize_title(title: str) -> str:
    """Title key for matching the same paper across sources (``Paper.title_norm``)."""
    return normalize_text(title)


def normalize_arxiv_id(raw: str) -> str | None:
    """``"arXiv:2401.06233v2"`` → ``"2401.06233"``; ``None`` if it is not an arXiv id."""
    text = _ARXIV_PREFIX.sub("", raw.strip())
    text = text.removesuffix(".pdf")
    if m := _ARXIV_NEW.match(text):
        return m.group(1)
    if m := _ARXIV_OLD.match(text):
        return m.group(1)
    return None


#: scheme prefixes a collection file may already carry on a paper id (kept as written)
PAPER_ID_SCHEMES = ("arxiv:", "doi:", "s2:", "paper:", "openalex:", "apc:")


def paper_ref_id(raw: str) -> str:
    """The stored Paper id of a paper reference as written in a collection or leaderboard file.

    The one rule for ids that files give as bare strings (APC papers, citations and
    comparisons, ``leaderboards.jsonl`` rankings): arXiv ids (with or without ``arXiv:`` /
    version) → ``arxiv:<id>``; an id that already carries a scheme prefix
    (:data:`PAPER_ID_SCHEMES`) is kept; anything else is an opaque collection id
    ``apc:<raw>``. Loaders and tasks must agree, or a leaderboard entry points at no node.
    """
    raw = raw.strip()
    if a := normalize_arxiv_id(raw):
        return f"arxiv:{a}"
    if raw.startswith(PAPER_ID_SCHEMES):
        return raw
    return f"apc:{raw}"


#: the longest DOI taken as one, in characters. The DOI system sets no limit, but the
#: longest registered ones are a few hundred characters; a longer "DOI" is a broken field.
#: At 1,000 (at most 4,000 UTF-8 bytes) every key built from one (``doi:…``, a record key
#: ``crossref:doi:…``) stays under the graph's key limit (``schema.text.MAX_KEY_BYTES``),
#: which a written key over it would crash the embedded server with.
MAX_DOI_CHARS = 1000


def normalize_doi(raw: str) -> str | None:
    """``"https://doi.org/10.1/ABC"`` → ``"10.1/abc"``; ``None`` if it is not a DOI (or is
    longer than :data:`MAX_DOI_CHARS`)."""
    text = _DOI_PREFIX.sub("", raw.strip()).lower()
    if len(text) > MAX_DOI_CHARS:
        return None
    return text if text.startswith("10.") and "/" in text else None


def why_not_a_doi(raw: object) -> str:
    """What an error says of ``raw``, which :func:`normalize_doi` did not take: its start, and
    its length when that was the reason (a long one looks like a DOI in its first 60)."""
    text = str(raw)
    if len(text) > MAX_DOI_CHARS:
        return f"{text[:60]!r}… ({len(text):,} characters; a DOI has at most {MAX_DOI_CHARS:,})"
    return repr(text[:60])


_OPENALEX_URL = "https://openalex.org/"
_OPENALEX_KINDS = "WAISCTPF"
#: OpenAlex, PubMed and MAG ids are integers (10-11 digits today): more than 18 digits (what
#: always fits the 64-bit integers loads keep them in) is a broken field, not an id, and a
#: long one would make a key over the graph's limit (``schema.text.MAX_KEY_BYTES``)
_OPENALEX = re.compile(r"^(?:https?://openalex\.org/)?([WAISCTPF]\d{1,18})$", re.IGNORECASE)
_PMCID = re.compile(
    r"^(?:https?://www\.ncbi\.nlm\.nih\.gov/pmc/articles/)?(?:PMC)?(\d{1,18})/?$", re.I
)
_PMID = re.compile(r"^(?:https?://pubmed\.ncbi\.nlm\.nih\.gov/)?(\d{1,18})/?$")
_MAX_DIGITS = 18
#: DataCite DOIs arXiv mints for its preprints: the DOI *is* the arXiv id
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$")


def normalize_openalex_id(raw: object) -> str | None:
    """``"https://openalex.org/W2741809807"`` / ``"w2741809807"`` → ``"W2741809807"``."""
    # OpenAlex's own spelling by slices (the regex's answer, ~3x cheaper): a snapshot load
    # normalises every work's and every author's id
    if (
        type(raw) is str
        and raw.startswith(_OPENALEX_URL)
        and (digits := raw[22:]).isdigit()
        and digits.isascii()
        and len(digits) <= _MAX_DIGITS
        and raw[21] in _OPENALEX_KINDS
    ):
        return raw[21:]
    m = _OPENALEX.match(str(raw).strip().rstrip("/"))
    return m.group(1).upper() if m else None


def normalize_pmid(raw: object) -> str | None:
    """``"https://pubmed.ncbi.nlm.nih.gov/14907713"`` → ``"14907713"``."""
    m = _PMID.match(str(raw).strip())
    return m.group(1) if m else None


def normalize_pmcid(raw: object) -> str | None:
    """``".../pmc/articles/PMC1234"`` / ``"PMC1234"`` / ``"1234"`` → ``"PMC1234"``."""
    m = _PMCID.match(str(raw).strip())
    return f"PMC{m.group(1)}" if m else None


def normalize_mag_id(raw: object) -> str | None:
    """MAG ids are bare integers (OpenAlex gives them as numbers or digit strings)."""
    text = str(raw).strip()
    return text if text.isdigit() and len(text) <= _MAX_DIGITS else None


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """The arXiv id behind arXiv's own DataCite DOI (``10.48550/arXiv.2401.00001``)."""
    d = normalize_doi(doi) if doi else None
    if d and (m := _ARXIV_DOI.match(d)):
        return normalize_arxiv_id(m.group(1))
    return None


def paper_id(
    *,
    arxiv_id: str | None = None,
    doi: str | None = None,
    corpus_id: int | str | None = None,
    openalex_id: str | None = None,
    title: str | None = None,
    year: int | None = None,
) -> str:
    """The stable Paper id from whatever identifiers a source provides (see module doc)."""
    if arxiv_id and (a := normalize_arxiv_id(str(arxiv_id))):
        return f"arxiv:{a}"
    if doi and (d := normalize_doi(doi)):
        return f"doi:{d}"
    if corpus_id not in (None, ""):
        return f"s2:{int(corpus_id)}"
    if openalex_id:
        return f"openalex:{str(openalex_id).rstrip('/').rsplit('/', 1)[-1]}"
    if title:
        return f"paper:{content_hash(normalize_title(title), year or '')}"
    raise ValueError("a paper needs an arXiv id, DOI, corpus id, OpenAlex id or a title")


def author_id(
    name: str,
    *,
    orcid: str | None = None,
    s2_author_id: str | None = None,
    openalex_author_id: str | None = None,
    listed_on: str | None = None,
) -> str:
    """An Author's id: its best id, else (named only by name) the name's hash, scoped by
    ``listed_on`` (the id of the work whose record lists it) where the catalogues give it:
    a name alone does not tell two people apart, and one node per spelled name made every
    "Wei Wang" of a slice one Author. A source that names a listed person again (another
    catalogue, a reload) lands on the same node through the work's list (aligned by
    position and name) or through the same record id."""
    # OpenAlex's author id first: OpenAlex gives it on every authorship and the ORCID on some
    # only, so keying by the ORCID first split one person in two (issue 35); an ORCID from
    # another source finds the node by its ``orcid`` slot (loaders/identity.py)
    if openalex_author_id:
        return f"openalexauthor:{str(openalex_author_id).rstrip('/').rsplit('/', 1)[-1]}"
    if orcid:
        return f"orcid:{normalize_orcid(orcid) or orcid.strip().rsplit('/', 1)[-1]}"
    if s2_author_id:
        return f"s2author:{s2_author_id}"
    if listed_on:
        return f"author:{content_hash(listed_on + chr(31) + normalize_text(name))}"
    return f"author:{content_hash(normalize_text(name))}"


_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", re.IGNORECASE)


def normalize_orcid(raw: object) -> str | None:
    """``"https://orcid.org/0000-0001-2345-6789"`` / ``"0000-0001-2345-678x"`` → the bare
    ORCID iD (upper-case check digit); ``None`` if it is not one."""
    m = _ORCID.search(str(raw).strip().rstrip("/"))
    return m.group(1).upper() if m else None


def named_id(kind: str, name: str) -> str:
    """``task:image classification`` style ids for entities whose name is their identity."""
    norm = normalize_text(name)
    if not norm:
        raise ValueError(f"empty {kind} name")
    return f"{kind}:{norm}"


def venue_id(name: str) -> str | None:
    """The Venue id of ``name`` (:func:`named_id`), or ``None`` for a name that makes no key:
    empty once normalised, or a key over the limit (``schema.text.MAX_KEY_BYTES``). A venue
    named by a page of text is a broken field: its work loads without the Venue node and
    keeps the text as its ``venue`` property, as a work with a broken DOI loads without it."""
    norm = normalize_text(name)
    if not norm or key_too_long(f"venue:{norm}"):
        return None
    return f"venue:{norm}"


def result_id(paper: str | None, method: str, dataset: str, task: str, metric: str) -> str:
    return "result:" + content_hash(
        paper or "", normalize_text(method), normalize_text(dataset), normalize_text(task),
        normalize_text(metric),
    )  # fmt: skip


def leaderboard_id(task: str, dataset: str, metric: str) -> str:
    return "lb:" + content_hash(
        normalize_text(task), normalize_text(dataset), normalize_text(metric)
    )


def citation_context_id(citing: str, cited: str, sentence: str | None) -> str:
    return "cite:" + content_hash(citing, cited, _SPACE.sub(" ", sentence or "").strip())


def scoped_id(kind: str, source: str, source_id: object) -> str:
    """Benchmark-scoped ids: ``query:dorismae:12``, ``review:aaar:abc``."""
    return f"{kind}:{source}:{source_id}"
