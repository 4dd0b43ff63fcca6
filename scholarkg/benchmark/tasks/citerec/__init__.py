"""The citation-recommendation family: citeBench diagnostics on ``<REF>`` citing sentences.

BEIR-layout collections are the ``retrieval`` family (``benchmark/tasks/retrieval/``).

``FAMILY`` declares the family (tasks, load commands, schema part, demo steps, datasets,
saved queries); the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import LookupIndex, SchemaPart

_LOAD = "scholarkg.commands.load_citerec"

FAMILY = Family(
    name="citerec",
    title="Local citation recommendation",
    reference="citeBench (Maharjan, arXiv 2412.07713)",
    tasks={"citerec": "scholarkg.benchmark.tasks.citerec.task:CiteRecTask"},
    load_commands={
        "s2": f"{_LOAD}:load_s2",
        "unarxive": f"{_LOAD}:load_unarxive",
    },
    schema=SchemaPart(
        labels=frozenset(["DiagnosticDataset"]),
        rel_types=frozenset(["IN_DATASET"]),
        lookups=(
            LookupIndex("CitationContext", "diag_class"),
            LookupIndex("CitationContext", "diag_dataset"),
        ),
        records="scholarkg.schema.citerec",
    ),
    demo_steps=("scholarkg.benchmark.tasks.citerec.demo:load_and_rank",),
    synthetic="scholarkg.synthetic.citerec_corpus",
    datasets="datasets.toml",
    queries=("citerec",),
    reaches_papers=PaperReach("citation_contexts", (("in", "GOLD", "CitationContext"),)),
)
