"""The retrieval family: ad-hoc retrieval on any BEIR-layout test collection, scored as BEIR does.

Why a family apart from citation recommendation: a BEIR collection (SciFact, SCIDOCS,
TREC-COVID, a citing-sentence collection converted to BEIR) is documents, queries and graded
qrels, nothing more; its loader, graph part (``Collection``, ``IN_COLLECTION``, ``HAS_QREL``),
named queries and task owe nothing to citeBench's contexts, and a user who only wants BEIR
numbers should not have to read the citation-recommendation family to find them.

``FAMILY`` declares the family (its task, ``load beir``, its schema part and saved queries);
the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family
from scholarkg.schema.spec import SchemaPart

FAMILY = Family(
    name="retrieval",
    title="Ad-hoc retrieval (BEIR layout)",
    reference="BEIR (Thakur et al., NeurIPS 2021 D&B); beir-cellar/beir EvaluateRetrieval",
    tasks={"retrieval": "scholarkg.benchmark.tasks.retrieval.task:RetrievalTask"},
    load_commands={"beir": "scholarkg.commands.load_retrieval:load_beir"},
    schema=SchemaPart(
        labels=frozenset(["Collection"]),
        rel_types=frozenset(["IN_COLLECTION", "HAS_QREL"]),
        records="scholarkg.schema.retrieval",
    ),
    synthetic="scholarkg.synthetic.beir",
    queries=("retrieval",),
)
