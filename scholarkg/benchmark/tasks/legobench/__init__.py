"""LEGOBench leaderboard-generation tasks (RPG, RPLM, LGPLM); the LEGOBench paper (Singh et al.,
arXiv 2401.06233); ``lingo-iitgn/LEGOBench``.

``rplm_scoring`` scores released or new RPLM answer workbooks against ``rplm.xlsx``.

``FAMILY`` declares the family (tasks, load commands, schema part, demo steps, datasets,
saved queries); the catalog ``scholarkg.families`` lists it.
"""

from __future__ import annotations

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import LookupIndex, SchemaPart

_TASKS = "scholarkg.benchmark.tasks.legobench.task"
_LOAD = "scholarkg.commands.load_legobench"
_DEMO = "scholarkg.benchmark.tasks.legobench.demo"

FAMILY = Family(
    name="legobench",
    title="LEGOBench",
    reference="Singh et al., arXiv 2401.06233; github.com/lingo-iitgn/LEGOBench",
    tasks={
        "legobench-rpg": f"{_TASKS}:RPGTask",
        "legobench-rplm": f"{_TASKS}:RPLMTask",
        "legobench-lgplm": f"{_TASKS}:LGPLMTask",
    },
    load_commands={
        "apc": f"{_LOAD}:load_apc",
        "pwc": f"{_LOAD}:load_pwc",
        "rplm": f"{_LOAD}:load_rplm",
        "leaderboards": f"{_LOAD}:load_leaderboards",
        "synthetic-legobench": f"{_LOAD}:load_synthetic_legobench",
    },
    schema=SchemaPart(
        labels=frozenset(
            ["Task", "Dataset", "Metric", "Method", "Result", "Leaderboard", "TitleLine"]
        ),
        rel_types=frozenset(
            [
                "COMPARES_WITH",
                "HAS_RESULT",
                "FOR_METHOD",
                "ON_DATASET",
                "FOR_TASK",
                "USING_METRIC",
                "IN_LEADERBOARD",
                "SUBTASK_OF",
                "HAS_ENTRY",
                "OF_PAPER",
                "USES_METHOD",
            ]
        ),
        lookups=tuple(
            LookupIndex(label, "name") for label in ("Dataset", "Task", "Metric", "Method")
        ),
        records="scholarkg.schema.records",
    ),
    demo_steps=tuple(
        f"{_DEMO}:{step}"
        for step in ("load_corpus", "explore", "leaderboard", "embed", "rpg", "llm_tasks")
    ),
    synthetic="scholarkg.synthetic.legobench_corpus",
    datasets="datasets.toml",
    queries=("legobench",),
    reaches_papers=PaperReach(
        "leaderboards", (("out", "HAS_RESULT", "Result"), ("out", "IN_LEADERBOARD", "Leaderboard"))
    ),
)
