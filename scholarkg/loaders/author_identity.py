"""One Author node per person, whichever source named them: the author half of identity
resolution for the open catalogues (``loaders/identity.py`` calls it once per chunk).

The rules (docs/decisions.md, "One Paper per work"):

* **by id.** An Author's OpenAlex author id, ORCID and Semantic Scholar author id are indexed
  slots (``openalex_id``, ``orcid``, ``s2_author_id``). Before a chunk is written, every id its
  Author records carry is looked up in one query (``identity/lookup_authors``) and a
  union-find groups the records and stored Authors of each person. The key is the best id
  among them (OpenAlex author id, then ORCID, then S2 author id, then the name's hash:
  ``schema/ids.author_id``'s order), so it does not depend on load order; any other node of
  the person is merged into it (:func:`merge_authors`: edges moved, nothing lost);
* **by name, on a work already listed.** A source that names authors only by name (arXiv,
  Crossref without ORCID) is aligned to the author list the work already has: position and
  normalised name (case, diacritics, punctuation and initials tolerated: "A. Lovelace",
  "Ada Lovelace", "Ada LOVELACE" match), else the one compatible name elsewhere in the list.
  A matched name adds its statement to the existing authorship instead of a second Author;
  a name becomes a new Author only where nothing matches;
* **ids kept as aliases.** A record that lands on another node of its person fills the
  node's empty ORCID / S2 slots with its ids; an id whose slot holds another value (an
  OpenAlex author id merged away, two OpenAlex ids sharing one ORCID; a second ORCID) and the
  ids of a merged-away node become ``(:AuthorAlias {id})-[:ALIAS_OF]->(:Author)``, node and
  edge in one statement (:func:`write_author_keys`), so a later record naming only that id
  lands on the person. An id found through an alias is never a node's key again. OpenAlex's
  retired author ids (``merged_ids/authors``) merge or re-key the Authors that hold them
  (:func:`retire_authors`).
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from scholarkg.loaders.source_rank import EDGE_MARKS, source_rank
from scholarkg.schema.records import Author, Authorship, EdgeRecord, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore
from scholarkg.store.cypher_common import chunked

log = logging.getLogger(__name__)

#: author id schemes by priority (``schema/ids.author_id``); a name's hash ranks last
_RANK = {"openalexauthor": 0, "orcid": 1, "s2author": 2}
#: the id slot of each author id scheme
_SLOT = {"openalexauthor": "openalex_id", "orcid": "orcid", "s2author": "s2_author_id"}
#: what a record landing on another node of its person never writes there: the node's name
#: and its id slots stay (ids go through :func:`write_author_keys`)
_NOT_FILLED = frozenset({"name", *_SLOT.values()})


def author_rank(author_id: str) -> tuple[int, str]:
    return (_RANK.get(author_id.split(":", 1)[0], 9), author_id)


def author_keys(a: Author) -> set[str]:
    keys = {a.id}
    if a.openalex_id:
        keys.add(f"openalexauthor:{a.openalex_id}")
    if a.orcid:
        keys.add(f"orcid:{a.orcid}")
    if a.s2_author_id:
        keys.add(f"s2author:{a.s2_author_id}")
    return keys


def has_id(a: Author) -> bool:
    return bool(a.openalex_id or a.orcid or a.s2_author_id)


#: Latin letters no Unicode decomposition takes to ASCII (a real Crossref item spells
#: "Martı́n" with a dotless i)
_FOLD = str.maketrans({"ı": "i", "ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "æ": "ae",
                       "œ": "oe"})  # fmt: skip


def name_tokens(name: str) -> list[str]:
    """Lower-case letters of ``name``, diacritics removed, split at anything else."""
    text = unicodedata.normalize("NFKD", name.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c)).translate(_FOLD)
    out, word = [], []
    for c in text:
        if c.isalpha():
            word.append(c)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def names_match(a: str, b: str) -> bool:
    """Two spellings of one person's name: the same family name (the last word, or the
    first before a comma: "Lovelace, Ada") and compatible given names (equal, or one the
    start of the other: an initial, "Ron"/"Ronald"; or one missing)."""

    def parts(name: str) -> tuple[str, list[str]]:
        if "," in name:
            last, _, first = name.partition(",")
            tokens = name_tokens(last)
            return ("".join(tokens), name_tokens(first))
        tokens = name_tokens(name)
        return (tokens[-1] if tokens else "", tokens[:-1])

    family_a, given_a = parts(a)
    family_b, given_b = parts(b)
    if not family_a or family_a != family_b:
        return False
    return all(x.startswith(y) or y.startswith(x) for x, y in zip(given_a, given_b, strict=False))


class _UF:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        root = self.parent.setdefault(x, x)
        while root != self.parent[root]:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _node(author_id: str) -> str:
    return "\x00author:" + author_id


class AuthorResolver:
    """Per chunk: which Author node each Author record (by id, then by name on its work)
    lands on. ``defer(loser, survivor)`` is the caller's queue for merges whose nodes may
    still sit in the writer's buffer."""

    def __init__(self, store: GraphStore, *, by_name: bool = True) -> None:
        self.store = store
        #: align id-less names to a work's list (the catalogues); the benchmark families
        #: resolve their Authors by id only (their lists are their own)
        self.by_name = by_name
        #: land the records that can only land on their own id without the union-find
        #: (:meth:`_settled`); off only to compare (tests/loaders/test_settled_authors.py)
        self.settle_authors = True
        #: key → Author id assigned in the previous chunk (maybe not written yet)
        self._recent: dict[str, str] = {}
        #: Paper id → [(position, Author id, name)] its records listed in the previous chunk
        self._recent_lists: dict[str, list[tuple[int | None, str, str]]] = {}
        self.merged: list[tuple[str, str]] = []
        self.aligned = 0
        self.deferred: list[tuple[str, str]] = []
        #: the chunk's Author records (by id) none of whose ids the graph held
        self._unknown: set[str] = set()
        #: (paper, name-only Author, Author with ids): authorships to move at the end
        self.moves: list[tuple[str, str, str]] = []
        #: (id key, Author id): the ids of records that landed on another node of their
        #: person, kept on it (:func:`write_author_keys`) once the chunk is written
        self._keys: list[tuple[str, str]] = []
        #: (Author id, properties): what such records say beyond a name and ids (an S2
        #: author's counts, homepage, DBLP names), filled in where the node lacks it
        self._fills: list[tuple[str, dict[str, Any]]] = []
        #: (name-only Author id, name): the spelling of a better-ranked source aligned onto
        #: a work's name-only Author a worse one wrote (:func:`_rank_names`)
        self._names: list[tuple[str, str]] = []
        #: the chunk's works whose stored author lists :meth:`_by_name` read, and per work
        #: its stored ``AUTHORED_BY`` edges as (Author id, the row read: the properties an
        #: OpenAlex authorship sets, ``identity/paper_authors``)
        self.lists_read: set[str] = set()
        self.stored_authorships: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        #: the chunk's ``identity/lookup_authors`` sent ahead (:meth:`send_lookup_ahead`):
        #: the keys it asked, and the function giving its rows
        self._ahead: tuple[set[str], Callable[[], list[dict[str, Any]]]] | None = None

    def send_lookup_ahead(self, groups: Iterable[Sequence[Any]]) -> None:
        """Send the look-up of the ids of ``groups``' Author records now
        (``BatchWriteStore.read_named_ahead``), with the ids the chunk before brought to
        other nodes of their person written first; :meth:`resolve` reads its rows when it
        asks the same keys, else looks up afresh.

        Why: the identity resolver calls this once its chunk's Paper look-up has answered
        (the chunk before is then in the store), and the server answers this read while the
        loading thread resolves the chunk's Papers. Run where :meth:`resolve` needed it, the
        loading thread waited 1.7 s of a 22,000-work update for it (``py-spy --idle`` over
        ``bench_openalex.py``). Between the two calls the resolver writes Papers, their
        aliases and renames, never an Author, an ``AuthorAlias`` or an Author's id slot, so
        the rows are the ones a look-up in :meth:`resolve` gives
        (``tests/loaders/test_author_lookup_ahead.py``). A store that does not queue reads
        is sent none: it would only run the read earlier."""
        self._ahead = None
        store = self.store
        if not isinstance(store, BatchWriteStore) or not store.reads_ahead:
            return
        self._write_pending()
        keys = {k for a in _id_authors(groups) for k in author_keys(a)}
        if keys:
            self._ahead = (
                keys,
                store.read_named_ahead("identity/lookup_authors", _lookup_params(keys)),
            )

    def resolve(
        self,
        groups: Sequence[Sequence[Any]],
        paper_of: Sequence[str | None],
        existing: set[str] | frozenset[str] = frozenset(),
        *,
        lists_of: Mapping[str, Sequence[str]] | None = None,
        sources: Sequence[str] | None = None,
    ) -> dict[tuple[str | None, str], str]:
        """``(Paper id of the group, Author record id) → the Author id it lands on`` for the
        records that land elsewhere than their own id. ``groups``: the chunk's records per
        source record, Paper ids already resolved; ``paper_of``: each group's Paper id;
        ``sources``: each group's source (its record's, not the ranked Paper's; none: the
        name-only Authors' spellings are not ranked, :meth:`_rank_names`).

        Called after the previous chunk was written (the resolver yields ``FLUSH`` first), so
        the ids its records brought to other nodes of their person are kept now, on nodes
        that exist (:meth:`finish` keeps the last chunk's)."""
        ahead, self._ahead = self._ahead, None
        self._write_pending()
        self._unknown = set()
        self.lists_read, self.stored_authorships = set(), {}
        authors = [r for recs in groups for r in recs if isinstance(r, Author)]
        if not authors:
            return {}
        by_id = self._by_id(authors, ahead)
        out: dict[tuple[str | None, str], str] = {}
        moved = {aid for aid, to in by_id.items() if aid != to}
        for recs, pid in zip(groups, paper_of, strict=True) if moved else ():
            for r in recs:
                if isinstance(r, Author) and r.id in moved:
                    out[(pid, r.id)] = by_id[r.id]
        if self.by_name:
            out.update(self._by_name(groups, paper_of, by_id, existing, sources))
        elif lists_of is not None:
            out.update(self._by_work_list(groups, paper_of, lists_of, by_id))
        lists: dict[str, list[tuple[int | None, str, str]]] = {}
        names = {a.id: a.name for a in authors}
        for recs, pid in zip(groups, paper_of, strict=True):
            if pid is None:
                continue
            for r in recs:
                if isinstance(r, Authorship) and r.start == pid:
                    end = out.get((pid, r.end), r.end)
                    lists.setdefault(pid, []).append((r.position, end, names.get(r.end, "")))
        self._recent_lists = lists
        return out

    # -- by id ---------------------------------------------------------------------------
    def _by_id(
        self,
        authors: list[Author],
        ahead: tuple[set[str], Callable[[], list[dict[str, Any]]]] | None = None,
    ) -> dict[str, str]:
        keys_of: dict[str, set[str]] = {}
        for a in authors:  # records of one id: every key any of them carries
            if has_id(a):
                keys_of.setdefault(a.id, set()).update(author_keys(a))
        if not keys_of:
            return {}
        keys = {k for ks in keys_of.values() for k in ks}
        if ahead is not None and ahead[0] == keys:
            rows = ahead[1]()
        else:
            rows = self.store.run_named("identity/lookup_authors", _lookup_params(keys))
        stored = {str(row["id"]) for row in rows}
        settled = self._settled(keys_of, rows, stored) if self.settle_authors else set()
        if settled:
            rows = [row for row in rows if str(row["id"]) not in settled]
        uf = _UF()
        #: ids stored as an alias of a node (merged away, retired): never a key again
        aliased: set[str] = set()
        for row in rows:
            uf.union(str(row["key"]), _node(str(row["id"])))
            if row.get("alias"):
                aliased.add(str(row["key"]))
        pseudo: set[str] = set()
        for aid, keys in keys_of.items():
            if aid in settled:
                continue
            first = next(iter(keys))
            for k in keys:
                uf.union(first, k)
                if (prev := self._recent.get(k)) is not None and prev not in stored:
                    pseudo.add(prev)
                    uf.union(k, _node(prev))
        nodes: dict[str, set[str]] = {}
        for aid in (*(stored - settled), *pseudo):
            nodes.setdefault(uf.find(_node(aid)), set()).add(aid)
        target: dict[str, str] = {}
        for aid in keys_of:
            if aid in settled:
                continue
            root = uf.find(aid)
            if root not in nodes and aid not in aliased:  # no stored node: its own id
                best = aid
            else:
                own = [] if aid in aliased else [aid]
                best = min([*own, *nodes.get(root, ())], key=author_rank)
            if root not in target or author_rank(best) < author_rank(target[root]):
                target[root] = best
        for root, best in target.items():
            for n in sorted(nodes.get(root, set()) - {best}):
                if n in stored and best in stored:
                    if merge_authors(self.store, n, best):
                        self.merged.append((n, best))
                else:
                    self.deferred.append((n, best))
        mapping = {aid: aid if aid in settled else target[uf.find(aid)] for aid in keys_of}
        #: records none of whose ids the graph (or the chunk before) holds
        self._unknown = {
            aid
            for aid in keys_of
            if (aid not in stored if aid in settled else not nodes.get(uf.find(aid)))
        }
        self._recent = {k: mapping[aid] for aid, keys in keys_of.items() for k in keys}
        for aid, keys in keys_of.items():  # ids of records that land on another node
            if mapping[aid] != aid:
                self._keys += [(k, mapping[aid]) for k in sorted(keys) if k != mapping[aid]]
        for a in authors:  # in the file's order: the first record to fill a gap fills it
            if has_id(a) and mapping[a.id] != a.id:
                extra = {k: v for k, v in a.properties().items() if k not in _NOT_FILLED}
                if extra:
                    self._fills.append((mapping[a.id], extra))
        return mapping

    def _settled(
        self, keys_of: dict[str, set[str]], rows: list[dict[str, Any]], stored: set[str]
    ) -> set[str]:
        """The chunk's Author record ids the union-find of :meth:`_by_id` has nothing to
        decide for: each lands on its own id, with no merge, no id to keep elsewhere and
        nothing to fill. A record id ``aid`` with keys ``K`` (``keys_of[aid]``) is one when

        * every row the look-up gave for a key of ``K`` names the node ``aid``, not through
          an alias (``K``'s component holds that node and nothing else stored);
        * no row names the node ``aid`` for a key outside ``K`` (no other record reaches it);
        * no other record id of the chunk shares a key of ``K``;
        * the previous chunk gave no key of ``K`` to a node not stored yet (which the
          union-find would join to ``K``; a stored one it leaves out).

        Then ``aid``'s component is ``K`` (with the node ``aid`` if the graph holds it), whose
        best id is ``aid`` itself; the record is unknown exactly when no row names ``aid``.

        Why: in an update nearly every author is stored under the id the record carries
        (a quarterly-style update of a 200,000-work slice: ~6,000 Author records a chunk), and
        each went through the union-find, the ranks and the per-component sets (author
        resolution was ~35 s of the loading thread's Python in ``py-spy`` over that update of
        ``bench_openalex.py``). Nothing in the graph differs:
        ``tests/loaders/test_settled_authors.py`` loads with and without them. The alias
        condition and the previous chunk's unwritten nodes do not arise in the loads tested
        (each chunk is written before the next is looked up); they are what the union-find
        would see, so they are kept."""
        owner: dict[str, str] = {}
        unsettled: set[str] = set()
        for aid, keys in keys_of.items():
            for k in keys:
                if (other := owner.setdefault(k, aid)) != aid:  # a key two records share
                    unsettled.add(other)
                    unsettled.add(aid)
        for row in rows:
            key, nid = str(row["key"]), str(row["id"])
            mine = owner.get(key)  # every key asked is a record's (the query rebuilds it)
            if nid != mine or row.get("alias"):
                if mine is not None:
                    unsettled.add(mine)
                if nid in keys_of:  # the node of another record, found by this key
                    unsettled.add(nid)
        recent = self._recent
        if recent:
            for key in owner.keys() & recent.keys():
                if recent[key] not in stored:
                    unsettled.add(owner[key])
        return keys_of.keys() - unsettled

    def _write_pending(self) -> None:
        """The ids and properties the records of the chunk before brought to another node
        of their person (written now: that chunk is in the store)."""
        keys, self._keys = self._keys, []
        if keys:
            write_author_keys(self.store, keys)
        fills, self._fills = self._fills, []
        if fills:
            fill_author_properties(self.store, fills)
        names, self._names = self._names, []
        if names:
            rows = [{"id": aid, "props": {"name": name}} for aid, name in dict(names).items()]
            self.store.run_named("identity/set_author_properties", {"rows": rows})

    def finish(self) -> None:
        """After the load's last write: the merges that waited for their nodes, the ids the
        last chunks brought, the name-only authorships to move."""
        while self.deferred:
            loser, survivor = self.deferred.pop(0)
            if loser != survivor and merge_authors(self.store, loser, survivor):
                self.merged.append((loser, survivor))
        self._write_pending()
        moves, self.moves = self.moves, []
        self.aligned += move_authorships(self.store, moves)

    def _moves_for(
        self,
        groups: Sequence[Sequence[Any]],
        paper_of: Sequence[str | None],
        by_id: dict[str, str],
        have: dict[str, dict[str, tuple[int | None, str]]],
        not_others: Callable[[int], set[str]],
    ) -> None:
        """``not_others(i)``: the listed Authors group ``i``'s record states itself (see
        :meth:`_by_name`), never moved onto one of its id-named authors."""
        for i, (recs, pid) in enumerate(zip(groups, paper_of, strict=True)):
            if pid is not None and pid in have:
                listed = have[pid]
                if not any(_name_only(a) or a.startswith(("s2author:", "orcid:")) for a in listed):
                    continue  # nothing to move or merge (an update's usual work): no set built
                if mine := not_others(i):
                    listed = {aid: v for aid, v in listed.items() if aid not in mine}
                self.moves += _moves(recs, pid, by_id, listed)
                self.deferred += _s2_merges(recs, pid, by_id, listed)

    # -- by name -------------------------------------------------------------------------
    def _by_work_list(
        self,
        groups: Sequence[Sequence[Any]],
        paper_of: Sequence[str | None],
        lists_of: Mapping[str, Sequence[str]],
        by_id: Mapping[str, str],
    ) -> dict[tuple[str | None, str], str]:
        """The benchmark families' mode (``load s2``): a record's authors that no id of the
        graph names (an S2 author id never seen, or no id at all) are aligned by position
        and name to the list the work already has on its stored nodes (``lists_of``: the
        record's Paper id → those nodes, e.g. the OpenAlex node merging into it), as a
        name-only source's are; a matched author's ids join the matched node (an empty
        ``s2_author_id`` slot, else an alias) and what it says beyond them fills it.

        An S2 author the graph knows only by their S2 id (an ``s2author:`` node, from another
        S2 work) who matches a person the work's catalogue list names by OpenAlex id or ORCID
        is that person: the S2 node is merged into theirs at the end of the load
        (:meth:`finish`), as a catalogue record loaded after would merge it
        (:func:`_s2_merges`); left apart, this order kept two nodes of one person."""
        wanted: list[tuple[Sequence[Any], str, dict[str, Author], list[str]]] = []
        s2_only: dict[str, Author] = {}
        for recs, pid in zip(groups, paper_of, strict=True):
            if pid is None:
                continue
            loose = {
                r.id: r
                for r in recs
                if isinstance(r, Author) and (not has_id(r) or r.id in self._unknown)
            }
            known = {
                r.id: r
                for r in recs
                if isinstance(r, Author)
                and r.s2_author_id
                and r.id not in loose
                and by_id.get(r.id, r.id).startswith("s2author:")
            }
            s2_only.update(known)
            if loose or known:  # the record's own node too: a family key can be the stored work's
                wanted.append(
                    (recs, pid, {**loose, **known}, sorted({*lists_of.get(pid, ()), pid}))
                )
        if not wanted:
            return {}
        ask = sorted({n for *_, nodes in wanted for n in nodes})
        have: dict[str, dict[str, tuple[int | None, str]]] = {}
        for row in self.store.run_named("identity/paper_authors", {"ids": ask}):
            have.setdefault(str(row["paper"]), {}).setdefault(
                str(row["id"]), (row["position"], row["name"])
            )
        out: dict[tuple[str | None, str], str] = {}
        for recs, pid, loose, nodes in wanted:
            listed: dict[str, tuple[int | None, str]] = {}
            for n in nodes:
                for aid, v in have.get(n, {}).items():
                    listed.setdefault(aid, v)
            listed = {aid: v for aid, v in listed.items() if aid not in loose}
            if not listed:
                continue
            for rec_id, aid in _align(recs, pid, loose, listed).items():
                if rec_id in s2_only:
                    node = by_id.get(rec_id, rec_id)
                    if aid.startswith(("openalexauthor:", "orcid:")) and aid != node:
                        out[(pid, rec_id)] = aid
                        self.deferred.append((node, aid))
                        self.aligned += 1
                    continue  # an S2 node meets itself, or another S2 or name-only node
                out[(pid, rec_id)] = aid
                self.aligned += 1
                a = loose[rec_id]
                if has_id(a):
                    self._join(a, aid)
        return out

    def _join(self, a: Author, aid: str) -> None:
        """``a``'s ids and what it says beyond them go to ``aid``, the node it was aligned
        to by name (written with the chunk's other kept ids: :meth:`_write_pending`)."""
        keys = author_keys(a) - {aid}
        self._keys += [(k, aid) for k in sorted(keys)]
        self._recent.update(dict.fromkeys(keys, aid))
        extra = {k: v for k, v in a.properties().items() if k not in _NOT_FILLED}
        if extra:
            self._fills.append((aid, extra))

    def _by_name(
        self,
        groups: Sequence[Sequence[Any]],
        paper_of: Sequence[str | None],
        by_id: dict[str, str],
        existing: set[str] | frozenset[str],
        sources: Sequence[str] | None = None,
    ) -> dict[tuple[str | None, str], str]:
        """Id-less authors of a work that already lists authors: aligned to that list.
        ``existing``: the chunk's Paper ids already stored (or written by the previous
        chunk): only their stored lists are read (a load of new works reads none)."""
        wanted: dict[int, str] = {}
        #: per wanted group, its Author records (a group holds ~15 records, ~4 of them
        #: Authors: the passes below read these, not the whole group again)
        authors_of: dict[int, list[Author]] = {}
        for i, (recs, pid) in enumerate(zip(groups, paper_of, strict=True)):
            if pid is None:
                continue
            found = [r for r in recs if isinstance(r, Author)]
            if found:
                wanted[i] = pid
                authors_of[i] = found
        if not wanted:
            return {}
        # the lists the works have: stored, then this chunk's other records, the previous
        # chunk's (maybe not written yet)
        have: dict[str, dict[str, tuple[int | None, str]]] = {}
        ask = sorted(set(wanted.values()) & existing)
        rows = self._stored_lists(ask) if ask else []
        self.lists_read = set(ask)
        stored = self.stored_authorships
        #: per stored edge of a work to a name-only Author, the best rank of the sources
        #: that list it there (whose spelling the node holds)
        listed_by: dict[tuple[str, str], int] = {}
        for row in rows:
            pid, aid = str(row["paper"]), str(row["id"])
            have.setdefault(pid, {})[aid] = (row["position"], row["name"])
            stored.setdefault(pid, []).append((aid, row))
            if _name_only(aid):
                rank = _listing_rank(row)
                listed_by[(pid, aid)] = min(rank, listed_by.get((pid, aid), rank))
        for pid, entries in self._recent_lists.items():
            for position, aid, name in entries:
                have.setdefault(pid, {}).setdefault(aid, (position, name))
        wanted_pids = set(wanted.values())  # not ``in wanted.values()``: a scan per group
        #: per group, the Authors its own id-carrying records land on
        own_ids: dict[int, set[str]] = {}
        for i, (recs, pid) in enumerate(zip(groups, paper_of, strict=True)):
            if pid is None or pid not in wanted_pids:
                continue
            names = {r.id: r for r in authors_of.get(i, ())}
            if not names:
                continue  # no Author record: no authorship below can name one
            for r in recs:
                if isinstance(r, Authorship) and r.start == pid and r.end in names:
                    a = names[r.end]
                    if has_id(a):
                        aid = by_id.get(a.id, a.id)
                        own_ids.setdefault(i, set()).add(aid)
                        have.setdefault(pid, {}).setdefault(aid, (r.position, a.name))

        def stated_by_itself(i: int) -> set[str]:
            """The listed Authors of group ``i``'s work that its own record states: the
            people its ids name and its name-only authors. A namesake in one list is a
            second person (the record says so by listing both), so nothing of the record
            is aligned to, or moved onto, another of its own authors; a reload of it is
            then the same list again. Another record of the work, of any source (a second
            OpenAlex record of a merged work included), is aligned to as ever."""
            return own_ids.get(i, set()) | {a.id for a in authors_of.get(i, ()) if not has_id(a)}

        out: dict[tuple[str | None, str], str] = {}
        self._moves_for(groups, paper_of, by_id, have, stated_by_itself)
        unknown = self._unknown
        for i, pid in wanted.items():
            recs = groups[i]
            authors = {
                r.id: r for r in authors_of[i] if not has_id(r) or _orcid_only_new(r, unknown)
            }
            if not authors:
                continue  # every author named by an id: nothing to align by name
            mine = stated_by_itself(i)
            listed = {
                aid: v
                for aid, v in have.get(pid, {}).items()
                if aid not in mine and aid not in authors
            }
            aligned = _align(recs, pid, authors, listed) if listed else {}
            if any(has_id(authors[rec_id]) for rec_id in aligned):
                aligned = self._without_other_orcids(aligned, authors)
            for rec_id, aid in aligned.items():
                a = authors[rec_id]
                if has_id(a):  # an iD the graph does not know (_orcid_only_new)
                    self._join(a, aid)
                out[(pid, rec_id)] = aid
                self.aligned += 1
            if listed_by and sources is not None:
                self._rank_names(sources[i], pid, authors, aligned, listed_by, out)
            # its name-only authors join the work's list for the chunk's later records of the
            # work (two records of one work in one chunk: the second is aligned to the first,
            # as it would be to the first stored; never both ways)
            for r in recs:
                if isinstance(r, Authorship) and r.start == pid and r.end in authors:
                    entry = (r.position, authors[r.end].name)
                    have.setdefault(pid, {}).setdefault(aligned.get(r.end, r.end), entry)
        return out

    def _rank_names(
        self,
        source: str,
        pid: str,
        authors: Mapping[str, Author],
        aligned: Mapping[str, str],
        listed_by: Mapping[tuple[str, str], int],
        out: dict[tuple[str | None, str], str],
    ) -> None:
        """A work's name-only Author holds the spelling of the best-ranked source listing
        it (``SOURCE_RANK``: arXiv, Crossref, S2, OpenAlex, a ``.bib``), whatever the load
        order: a record of a worse source than the stored edge's writes no name on the node
        it shares (``out`` maps it onto itself: :func:`rewrite_authors` leaves its Author
        record out), and one of a better or equal source aligned onto another's node gives
        it its spelling (:meth:`_write_pending`).

        Why: the spellings of one name (Crossref's ``L GUMLEY``, a ``.bib``'s
        ``Gumley, L.``) give one id, so the node's name was the last record's and flipped
        at each reload; aligned by name, it was the first one's. An Author with an id keeps
        its own source's name: it is a person across works, not one work's listing."""
        mine = source_rank(source)
        for rec_id, a in authors.items():
            target = aligned.get(rec_id, rec_id)
            if has_id(a) or not _name_only(target) or (pid, target) not in listed_by:
                continue
            best = listed_by[(pid, target)]
            if target == rec_id and mine > best:
                out[(pid, rec_id)] = rec_id
            elif target != rec_id and mine <= best:
                self._names.append((target, a.name))

    def _without_other_orcids(
        self, aligned: dict[str, str], authors: Mapping[str, Author]
    ) -> dict[str, str]:
        """``aligned`` less the Author records named by an iD (``_orcid_only_new``) whose
        match is not an OpenAlex author holding no ORCID: a name-only author moves onto the
        iD's node instead (``_moves``), and a person listed with another iD is another
        person, or one this cannot tell (a merge of the other load order, ``_s2_merges``,
        asks the same)."""
        ask = sorted({aid for rec_id, aid in aligned.items() if has_id(authors[rec_id])})
        open_slot = {
            str(row["id"])
            for row in self.store.run_named("identity/author_orcids", {"ids": ask})
            if row["orcid"] is None and str(row["id"]).startswith("openalexauthor:")
        }
        return {
            rec_id: aid
            for rec_id, aid in aligned.items()
            if not has_id(authors[rec_id]) or aid in open_slot
        }

    def _stored_lists(self, ids: list[str]) -> list[dict[str, Any]]:
        """``identity/paper_authors`` of ``ids``, beside the relationship writes still
        running that name none of them (``BatchWriteStore.run_named_beside_relationships``):
        it reads only these Papers' ``AUTHORED_BY`` edges and the Authors at their ends,
        which no other relationship write changes.

        Why: read after every write, it waited for the chunk before's ``CITES`` and
        authorships, 0.64 s of the loading thread in a 22,000-work update (``py-spy
        --idle`` over ``bench_openalex.py``), with nothing else to do meanwhile."""
        store = self.store
        if isinstance(store, BatchWriteStore):
            return store.run_named_beside_relationships(
                "identity/paper_authors", {"ids": ids}, ids=ids
            )
        return store.run_named("identity/paper_authors", {"ids": ids})


def name_only_authorships(
    paper_id: str, names: Iterable[str], mark: str
) -> tuple[list[Author], list[Authorship]]:
    """A source's author list given by names alone (arXiv, a ``.bib``): one Author per name,
    scoped by the listing work (``Author.listed_on``), and its AUTHORED_BY edge at its
    position with the source's ``mark`` (``from_arxiv``…), so a reload replaces only it."""
    authors: list[Author] = []
    edges: list[Authorship] = []
    for position, name in enumerate(names):
        author = Author(name=name, listed_on=paper_id)
        authors.append(author)
        edges.append(Authorship(start=paper_id, end=author.id, position=position, **{mark: True}))
    return authors, edges


def _id_authors(groups: Iterable[Sequence[Any]]) -> Iterator[Author]:
    """The Author records of ``groups`` that carry an id (those :meth:`AuthorResolver._by_id`
    looks up)."""
    for recs in groups:
        for r in recs:
            if isinstance(r, Author) and has_id(r):
                yield r


def _align(
    recs: Sequence[Any],
    pid: str,
    authors: Mapping[str, Author],
    listed: Mapping[str, tuple[int | None, str]],
) -> dict[str, str]:
    """``Author record id → listed Author id`` for the authorships of ``pid`` in ``recs``
    whose Author (in ``authors``) matches one of the work's listed authors (``listed``: id →
    (position, name)): the same position and a compatible name, else the one compatible name
    elsewhere in the list; each listed author taken once. A name the record lists twice
    (two namesakes, one name-only Author record: its id is the name's) is not aligned: which
    of its authorships is which listed author cannot be told, and moving both onto one would
    give that author the other's position."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    ends = Counter(r.end for r in recs if isinstance(r, Authorship) and r.start == pid)
    for r in recs:
        if not (isinstance(r, Authorship) and r.start == pid and r.end in authors):
            continue
        if ends[r.end] > 1:
            continue
        free = {aid: v for aid, v in listed.items() if aid not in taken}
        if (match := _one_match(authors[r.end].name, r.position, free)) is not None:
            taken.add(match)
            out[r.end] = match
    return out


def _name_only(author_id: str) -> bool:
    return author_id.startswith("author:")


def _listing_rank(row: Mapping[str, Any]) -> int:
    """The best ``source_rank`` of the sources a stored ``AUTHORED_BY`` row of a name-only
    Author says list it (``identity/paper_authors``' ``listed_by``: its marks in
    ``_LISTING_MARKS``' order, then its ``also`` record keys, ``<source>:<id>``). None (a
    graph written before the marks): the worst."""
    listed = list(row.get("listed_by") or ())
    marks, keys = listed[: len(_LISTING_MARKS)], listed[len(_LISTING_MARKS) :]
    on = [source for source, mark in zip(_LISTING_MARKS, marks, strict=False) if mark is True]
    ranks = [source_rank(source) for source in on]
    ranks += [source_rank(str(key).split(":", 1)[0]) for key in keys]
    return min(ranks, default=source_rank(None))


#: the sources of the marks ``identity/paper_authors`` lists in ``listed_by``, in its order
_LISTING_MARKS = ("arxiv", "crossref", "s2", "bibtex", "openalex")


def _orcid_only_new(a: Author, unknown: set[str]) -> bool:
    """An Author record named by an ORCID iD alone (Crossref, a ``.bib``'s ``ORCID-Numbers``)
    that no node of the graph holds: aligned by name to the work's listed authors like a
    name-only one (``AuthorResolver._by_name``), so the person OpenAlex lists without that
    iD is one node, which takes the iD. Before, the work listed that person twice."""
    return bool(a.orcid) and not a.openalex_id and not a.s2_author_id and a.id in unknown


def _moves(
    recs: Sequence[Any],
    pid: str,
    by_id: dict[str, str],
    listed: dict[str, tuple[int | None, str]],
) -> list[tuple[str, str, str]]:
    """``(paper, name-only Author, Author with ids)``: where a record naming its authors by
    id lists a person the work already lists by name only (a source read earlier), that
    authorship moves to the person's node (:func:`move_authorships`)."""
    loose = {aid: v for aid, v in listed.items() if _name_only(aid)}
    if not loose:  # the work lists nobody by name only: nothing to move
        return []
    names = {r.id: r for r in recs if isinstance(r, Author) and has_id(r)}
    out: list[tuple[str, str, str]] = []
    for r in recs:
        if not (isinstance(r, Authorship) and r.start == pid and r.end in names) or not loose:
            continue
        if (match := _one_match(names[r.end].name, r.position, loose)) is not None:
            out.append((pid, match, by_id.get(r.end, r.end)))
            del loose[match]
    return out


def _s2_merges(
    recs: Sequence[Any],
    pid: str,
    by_id: dict[str, str],
    listed: dict[str, tuple[int | None, str]],
) -> list[tuple[str, str]]:
    """``(S2 Author, Author with a catalogue id)``: a work ``load s2`` listed first names
    its authors by S2 author ids only; a catalogue record naming the same people by OpenAlex
    id or ORCID (and no S2 id) at the same position under a compatible name is the same
    person, so the S2 node is merged into theirs (:func:`merge_authors`, its other works'
    authorships with it). The other order gives that node: ``load s2`` aligns an S2 author
    the graph does not know to the work's listed authors by position and name
    (:meth:`AuthorResolver._by_work_list`); before, this order left every author twice.

    The same for an ``orcid:`` node (Crossref's, a ``.bib``'s author named by an iD alone)
    and an OpenAlex record naming that person without an ORCID: the other order of
    :func:`_orcid_only_new`."""
    loose = {aid: v for aid, v in listed.items() if aid.startswith(("s2author:", "orcid:"))}
    if not loose:
        return []
    names = {
        r.id: r
        for r in recs
        if isinstance(r, Author) and (r.openalex_id or r.orcid) and not r.s2_author_id
    }
    out: list[tuple[str, str]] = []
    for r in recs:
        if not (isinstance(r, Authorship) and r.start == pid and r.end in names) or not loose:
            continue
        target = by_id.get(r.end, r.end)
        if target.startswith("s2author:") or target in loose:
            continue
        if not target.startswith("openalexauthor:") or names[r.end].orcid:
            # an ORCID-keyed node is merged only into an OpenAlex author who states no iD
            # (another iD is another person, or one this cannot tell): the person a source
            # naming them by the iD alone listed first (_orcid_only_new is the other order)
            candidates = {a: v for a, v in loose.items() if a.startswith("s2author:")}
        else:
            candidates = loose
        if (match := _one_match(names[r.end].name, r.position, candidates)) is not None:
            out.append((match, target))
            del loose[match]
    return out


def _one_match(
    name: str, position: int | None, listed: Mapping[str, tuple[int | None, str]]
) -> str | None:
    """The one listed author (id → (position, name)) ``name`` is: the compatible name at
    ``position``, else the one compatible name elsewhere in the list; ``None`` when none or
    several are."""
    match = [
        a
        for a, (pos, other) in listed.items()
        if pos == position and names_match(name, other or "")
    ]
    if not match:
        match = [a for a, (_, other) in listed.items() if names_match(name, other or "")]
    return match[0] if len(match) == 1 else None


def move_authorships(store: GraphStore, moves: Sequence[tuple[str, str, str]]) -> int:
    """Move each ``(paper, from Author, to Author)`` authorship (its properties and marks
    join the target's), then delete the name-only Authors left with no relationship."""
    if not moves:
        return 0
    rows = [{"paper": p, "old": a, "new": b} for p, a, b in moves]
    store.run_named("identity/copy_authorships", {"rows": rows})
    done = store.run_named("identity/drop_authorships", {"rows": rows})
    store.run_named("identity/drop_lone_authors", {"ids": sorted({a for _, a, _ in moves})})
    return int(done[0]["dropped"]) if done else 0


def rewrite_authors(
    recs: Sequence[Any], pid: str | None, amap: dict[tuple[str | None, str], str]
) -> list[Any]:
    """The group's records with its Author records and AUTHORED_BY ends moved where
    :meth:`AuthorResolver.resolve` put them. An Author that lands on another node writes
    nothing to it: the node keeps its name and its ids (writing the record's would flip the
    node's id slot to whichever record of the person came last)."""
    if not amap:
        return list(recs)
    out: list[Any] = []
    for r in recs:
        if isinstance(r, Author) and (pid, r.id) in amap:
            continue  # the person's node exists (or another record writes it)
        if isinstance(r, EdgeRecord) and r.END == "Author" and (pid, r.end) in amap:
            out.append(r.replaced({"end": amap[(pid, r.end)]}))
            continue
        out.append(r)
    return out


def described_paper(recs: Sequence[Any]) -> Paper | None:
    """The Paper record a catalogue group describes (its first Paper record that is not a
    stub): its id, before resolution, is the group's work; its ``source``, before resolution
    ranks the Paper's, is the record's source."""
    for r in recs:
        if isinstance(r, Paper) and not r.is_stub():
            return r
    return None


def merge_authors(store: GraphStore, loser: str, survivor: str) -> bool:
    """Merge Author ``loser`` into ``survivor`` (two nodes of one person): the survivor gets
    the ids and properties it lacks, every relationship moves (re-MERGEd; an authorship both
    held keeps the survivor's properties, gains the loser's missing ones, both records'
    marks and ``also`` entries), the loser's ids the survivor's slots do not hold become
    aliases of the survivor (:func:`write_author_keys`), then the loser is deleted. Each
    step is a whole statement and the delete comes last, so an interruption loses nothing
    (a rerun finds both nodes again and finishes the merge). ``False`` if either is
    missing."""
    rows = store.run_named("identity/author_properties", {"ids": [loser, survivor]})
    props = {str(r["id"]): dict(r["props"]) for r in rows}
    if loser not in props or survivor not in props:
        return False
    a, b = props[survivor], props[loser]
    update = {k: v for k, v in b.items() if k != "id" and v is not None and a.get(k) is None}
    if update:
        store.run_named(
            "identity/set_author_properties", {"rows": [{"id": survivor, "props": update}]}
        )
    shared = {
        str(r["paper"]): dict(r["props"] or {})
        for r in store.run_named(
            "identity/shared_authorships", {"loser": loser, "survivor": survivor}
        )
    }
    batches: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in store.run_named("identity/author_relationships", {"id": loser}):
        other = str(r["other"])
        edge_props: dict[str, Any] = dict(r["props"] or {})
        if r["dir"] == "in":
            if r["type"] == "AUTHORED_BY" and other in shared:
                edge_props = _joined_authorship(shared[other], edge_props)
            row: dict[str, Any] = {"start": other, "end": survivor, "props": edge_props}
            kind = (str(r["type"]), str(r["label"]), "Author")
        else:
            row = {"start": survivor, "end": other, "props": edge_props}
            kind = (str(r["type"]), "Author", str(r["label"]))
        batches.setdefault(kind, []).append(row)
    for (rel, start_label, end_label), rel_rows in batches.items():
        store.merge_relationships(rel, start_label, end_label, rel_rows)
    write_author_keys(store, [(k, survivor) for k in _stored_keys(loser, b)])
    store.delete_nodes("Author", [loser])
    log.info("merged Author %s into %s", loser, survivor)
    return True


#: an authorship's source marks (loaders/identity.py: a Paper's own record of a source)
_MARKS = EDGE_MARKS


def _joined_authorship(kept: dict[str, Any], moved: dict[str, Any]) -> dict[str, Any]:
    """One authorship of a work both merged Authors held: the survivor's properties
    (``kept``) win, the loser's fill the gaps; a source mark either had stays, and the
    ``also`` lists (records that are not the work's own) are united, sorted."""
    out = {**moved, **{k: v for k, v in kept.items() if v is not None}}
    for mark in _MARKS:
        if kept.get(mark) or moved.get(mark):
            out[mark] = True
    also = sorted(set(kept.get("also") or ()) | set(moved.get("also") or ()))
    if also:
        out["also"] = also
    return out


def _stored_keys(author_id: str, props: dict[str, Any]) -> list[str]:
    """The scheme-prefixed ids a stored Author holds: its id and its id slots."""
    keys = {author_id} if author_id.partition(":")[0] in _SLOT else set()
    for scheme, slot in _SLOT.items():
        if props.get(slot):
            keys.add(f"{scheme}:{props[slot]}")
    return sorted(keys)


def write_author_keys(store: GraphStore, pairs: Iterable[tuple[str, str]]) -> int:
    """Keep each ``(id key, Author id)`` on that Author (the ids of a record that landed on
    another node of its person, of a merged-away node, of a retired OpenAlex author): an
    empty ORCID or S2 slot takes the id (``identity/fill_author_ids``); an id its slot does
    not hold becomes an ``AuthorAlias`` with its ``ALIAS_OF`` edge, node and edge in one
    statement (``identity/alias_author_ids``). The OpenAlex slot is never filled this way:
    an OpenAlex id that is not the node's key is one merged away or retired. Decided in the
    store against the node as it is, so the result does not depend on what this process
    knew. Returns how many ids were kept as aliases (or already were)."""
    by_slot: dict[str, list[dict[str, str]]] = {}
    for key, author in sorted(set(pairs)):
        scheme, _, value = key.partition(":")
        slot = _SLOT.get(scheme)
        if slot is None or not value or key == author:
            continue
        by_slot.setdefault(slot, []).append({"id": key, "of": author, "value": value})
    aliased = 0
    for slot, rows in sorted(by_slot.items()):
        if slot != "openalex_id":
            store.run_named("identity/fill_author_ids", {"rows": rows}, prop=slot)
        done = store.run_named("identity/alias_author_ids", {"rows": rows}, prop=slot)
        aliased += int(done[0]["written"]) if done else 0
    return aliased


def fill_author_properties(store: GraphStore, fills: Sequence[tuple[str, dict[str, Any]]]) -> int:
    """Give each ``(Author id, properties)``'s node the properties it lacks (an S2 author
    record's counts on the person's OpenAlex-keyed node); the first of ``fills`` to give one
    wins, and a value the node holds is never replaced. Returns how many nodes gained any."""
    ids = sorted({aid for aid, _ in fills})
    have = {
        str(r["id"]): dict(r["props"])
        for r in store.run_named("identity/author_properties", {"ids": ids})
    }
    update: dict[str, dict[str, Any]] = {}
    for aid, props in fills:
        if aid not in have:
            continue
        gaps = update.setdefault(aid, {})
        for k, v in props.items():
            if have[aid].get(k) is None and k not in gaps:
                gaps[k] = v
    rows = [{"id": aid, "props": props} for aid, props in sorted(update.items()) if props]
    if rows:
        store.run_named("identity/set_author_properties", {"rows": rows})
    return len(rows)


#: key scheme → its slot's ``identity/lookup_authors`` parameter
_SLOT_PARAMS = {"orcid": "orcid", "openalexauthor": "openalex", "s2author": "s2"}


def _lookup_params(keys: set[str], *, empty: bool = True) -> dict[str, list[str]]:
    """``identity/lookup_authors``' parameters for ``keys``: a key of a slot's scheme goes to
    that slot's list (the query seeks it as a node id from there), any other to ``ids``;
    ``aliases`` holds every key. ``empty=False``: a key with an empty value ("orcid:") is not
    sought in its slot (:func:`lookup_author_keys`), only as an id and an alias."""
    params: dict[str, list[str]] = {"ids": [], "orcid": [], "openalex": [], "s2": []}
    other = params["ids"]
    for key in keys:
        scheme, _, value = key.partition(":")
        name = _SLOT_PARAMS.get(scheme)
        if name is None or not (value or empty):
            other.append(key)
        else:
            params[name].append(value)
    for v in params.values():
        v.sort()
    params["aliases"] = sorted(keys)
    return params


def lookup_author_keys(store: GraphStore, keys: Iterable[str]) -> dict[str, str]:
    """``id key → Author id`` for the keys (``openalexauthor:A1``, ``orcid:…``,
    ``s2author:…``) some stored Author holds, by its id, a slot or an alias."""
    wanted = set(keys)
    if not wanted:
        return {}
    rows = store.run_named("identity/lookup_authors", _lookup_params(wanted, empty=False))
    found: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: (bool(r["alias"]), str(r["id"]))):
        found.setdefault(str(row["key"]), str(row["id"]))  # a node's own id before an alias
    return found


def merge_shared_author_ids(store: GraphStore) -> list[tuple[str, str]]:
    """Merge the Authors that share an ORCID or an S2 author id into the best-ranked of each
    person (:func:`author_rank`, as the incremental load keys them), with
    :func:`merge_authors` (edges moved, the loser's ids kept as aliases): what the
    incremental load's look-up by id does, for a graph built without it (``load openalex
    --bulk`` keys each OpenAlex author id apart). One scan of the Authors with those ids.
    Returns the ``(loser, survivor)`` pairs."""
    uf = _UF()
    members: set[str] = set()
    for row in store.run_named("identity/shared_author_ids"):
        ids = [str(i) for i in row["ids"]]
        members.update(ids)
        for other in ids[1:]:
            uf.union(ids[0], other)
    people: dict[str, list[str]] = {}
    for aid in members:
        people.setdefault(uf.find(aid), []).append(aid)
    merged: list[tuple[str, str]] = []
    for group in sorted(people.values(), key=min):
        survivor = min(group, key=author_rank)
        for loser in sorted(set(group) - {survivor}):
            if merge_authors(store, loser, survivor):
                merged.append((loser, survivor))
    return merged


def retire_authors(
    store: GraphStore, pairs: Iterable[tuple[str, str]], *, chunk: int = 5_000
) -> int:
    """Apply OpenAlex's ``merged_ids/authors``: each ``(old A id, surviving A id)``. When
    both are stored, the old one's node is merged into the survivor's (OpenAlex decided, so
    its survivor wins whatever the ids' text order); when only the old one is, its node is
    re-keyed to the surviving id (``identity/rename_authors``). Either way the old id stays
    an ``AuthorAlias`` of the person, so a record still naming it lands there. One lookup
    per ``chunk`` pairs (the file lists millions, most never loaded). Returns how many
    stored Authors changed."""

    def apply(batch: list[tuple[str, str]]) -> int:
        found = lookup_author_keys(store, {f"openalexauthor:{a}" for pair in batch for a in pair})
        n = 0
        for old, new in batch:
            old_key, new_key = f"openalexauthor:{old}", f"openalexauthor:{new}"
            a, b = found.get(old_key), found.get(new_key)
            if a is None or a == b:
                continue
            if b is not None:
                merge_authors(store, a, b)
                survivor = b
            elif a == old_key:  # keyed by the retired id: it takes the surviving one
                store.run_named(
                    "identity/rename_authors",
                    {"rows": [{"old": a, "new": new_key, "openalex": new}]},
                )
                survivor = new_key
                log.info("re-keyed Author %s to %s (retired by OpenAlex)", a, new_key)
            else:  # the person's node has another key: the surviving id names it too
                survivor = a
            write_author_keys(store, [(old_key, survivor), (new_key, survivor)])
            for key, value in list(found.items()):
                if value == a:
                    found[key] = survivor
            found[new_key] = survivor
            n += 1
        return n

    return sum(apply(batch) for batch in chunked(pairs, chunk))
