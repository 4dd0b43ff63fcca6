"""AAAR-1.0 (EqInfer, ExpDesign, Weakness) and ReviewCritique on the task interface.

``eqinfer``, ``expdesign``, ``weakness`` and ``reviewcritique`` hold one task each;
``scoring`` the pure scoring (percent as published), ``predictions`` the readers of released
result folders and JSONL, ``task`` the base class the four share. Definitions: the AAAR-1.0
paper (Lou et al., arXiv 2410.22394).

``FAMILY`` declares the family (tasks, load commands, schema part, demo steps, datasets,
saved queries); the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import SchemaPart

_AAAR = "scholarkg.benchmark.tasks.aaar"

FAMILY = Family(
    name="aaar",
    title="AAAR-1.0",
    reference="Lou et al., arXiv 2410.22394, github.com/RenzeLou/AAAR-1.0; ReviewCritique: Du "
    "et al., EMNLP 2024 (arXiv 2406.16253), github.com/jiangshdd/ReviewCritique",
    tasks={
        "aaar-eqinfer": f"{_AAAR}.eqinfer:EqInferTask",
        "aaar-expdesign": f"{_AAAR}.expdesign:ExpDesignTask",
        "aaar-weakness": f"{_AAAR}.weakness:WeaknessTask",
        "reviewcritique": f"{_AAAR}.reviewcritique:ReviewCritiqueTask",
    },
    load_commands={
        "aaar": "scholarkg.commands.load_aaar:load_aaar",
        "reviewcritique": "scholarkg.commands.load_aaar:load_reviewcritique",
    },
    schema=SchemaPart(
        labels=frozenset(
            [
                "Review",
                "ReviewSegment",
                "Weakness",
                "Experiment",
                "Explanation",
                "EqItem",
                "Equation",
                "Figure",
            ]
        ),
        rel_types=frozenset(
            [
                "REVIEWS",
                "HAS_SEGMENT",
                "HAS_WEAKNESS",
                "HAS_EXPERIMENT",
                "EXPLAINED_BY",
                "HAS_ITEM",
                "HAS_OPTION",
                "HAS_FIGURE",
            ]
        ),
        records="scholarkg.schema.aaar",
    ),
    demo_steps=(f"{_AAAR}.demo:load_and_answer",),
    synthetic="scholarkg.synthetic.aaar",
    datasets="datasets.toml",
    queries=("aaar",),
    reaches_papers=PaperReach("aaar_experiments", (("out", "HAS_EXPERIMENT", "Experiment"),)),
)
