"""DORIS-MAE on the graph: the pool re-ranking task, its baselines and our rankers.

``FAMILY`` declares the family (tasks, load commands, schema part, demo steps, datasets,
saved queries); the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import LookupIndex, SchemaPart

FAMILY = Family(
    name="dorismae",
    title="DORIS-MAE",
    reference="Wang et al., arXiv 2310.04678; github.com/Real-Doris-Mae/Doris-Mae-Dataset",
    tasks={"dorismae": "scholarkg.benchmark.tasks.dorismae.task:DorisMaeTask"},
    load_commands={"dorismae": "scholarkg.commands.load_dorismae:load_dorismae"},
    schema=SchemaPart(
        labels=frozenset(["Aspect", "Sentence", "SubQuery"]),
        rel_types=frozenset(
            [
                "HAS_ASPECT",
                "HAS_SUB_ASPECT",
                "SUB_ASPECT_OF",
                "JUDGED",
                "HAS_CANDIDATE",
                "HAS_SENTENCE",
                "EXPRESSES",
                "DERIVED_FROM",
                "USES_ASPECT",
            ]
        ),
        lookups=(LookupIndex("SubQuery", "qid"), LookupIndex("Paper", "doris_abstract_id")),
        records="scholarkg.schema.dorismae",
    ),
    demo_steps=("scholarkg.benchmark.tasks.dorismae.demo:load_and_rank",),
    synthetic="scholarkg.synthetic.dorismae",
    datasets="datasets.toml",
    queries=("dorismae",),
    reaches_papers=PaperReach("doris_queries", (("in", "HAS_CANDIDATE", "Query"),)),
)
