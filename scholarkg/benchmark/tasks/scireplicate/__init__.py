"""SciReplicate-Bench on the graph: the task, its scoring, sandbox, agent look-ups and agent.

``FAMILY`` declares the family (tasks, load commands, schema part, demo steps, datasets,
saved queries); the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import LookupIndex, SchemaPart

FAMILY = Family(
    name="scireplicate",
    title="SciReplicate-Bench",
    reference="Xiang et al., arXiv 2504.00255; github.com/xyzCS/SciReplicate-Bench",
    tasks={"scireplicate": "scholarkg.benchmark.tasks.scireplicate.task:ScireplicateTask"},
    load_commands={"scireplicate": "scholarkg.commands.load_scireplicate:load_scireplicate"},
    schema=SchemaPart(
        labels=frozenset(
            ["CodeTask", "CodeFile", "CodeEntity", "ExternalAPI", "Implementation", "ReasoningStep"]
        ),
        rel_types=frozenset(
            [
                "HAS_TASK",
                "TARGETS",
                "DEPENDS_ON",
                "CALLS_API",
                "CONTAINS",
                "DEFINES",
                "HAS_STEP",
                "DATA_FLOW",
                "IMPLEMENTS",
            ]
        ),
        lookups=(LookupIndex("CodeEntity", "name"), LookupIndex("CodeFile", "path")),
        records="scholarkg.schema.scireplicate",
    ),
    demo_steps=("scholarkg.benchmark.tasks.scireplicate.demo:load_and_score",),
    synthetic="scholarkg.synthetic.scireplicate",
    datasets="datasets.toml",
    queries=("scireplicate",),
    reaches_papers=PaperReach("scirep_tasks", (("out", "HAS_TASK", "CodeTask"),)),
)
