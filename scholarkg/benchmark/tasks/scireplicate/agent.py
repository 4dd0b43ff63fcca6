"""A ReAct-style Sci-Reproducer: an LLM writes the function body, using the graph look-ups.

Per task the model sees the LaTeX of the algorithm, the signature and docstring (arguments
and return values, as the released prompt gives them), where the function lives, and the
comment format of reasoning steps. It then alternates ``Thought`` / ``Action`` lines with our
``Observation`` replies until it writes ``Final Answer`` with a code block::

    Action: SearchPaper[contrastive loss temperature]
    Action: SearchSection[sec:method]
    Action: SearchLiterature[ref3 | how the margin is chosen]
    Action: SearchCode[normalize]
    Action: SearchFile[utils/helpers.py]

Actions are answered by :class:`.lookups.ScireplicateLookups` (the task's target body is
masked). ``--agent none`` is the paper's "No Agent" row: one prompt, no look-ups. The text
protocol (not OpenAI tool calls) works with every OpenAI-compatible server, including the
local SmolLM2 one. Generation stops at ``Observation:`` so the model cannot invent results.

Each answer is stored per run as ``(:Implementation {kind: 'generated', run_id})`` with its
transcript and its reasoning steps (``ReasoningStep`` + ``DATA_FLOW``) built from the step
comments of the generated code, so runs can be compared step by step in the graph.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.metrics.code import strip_code_fence
from scholarkg.benchmark.metrics.code_graph import build_reasoning_graph
from scholarkg.benchmark.task import Answers, AnswerSource, StageProgress
from scholarkg.benchmark.tasks.scireplicate.lookups import ScireplicateLookups
from scholarkg.loaders.scireplicate_data import TaskSpec
from scholarkg.store.base import full_store

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

OBSERVATION_LIMIT = 2_000
ACTIONS = ("SearchPaper", "SearchSection", "SearchLiterature", "SearchCode", "SearchFile")
_ACTION = re.compile(r"^\s*Action\s*:\s*(\w+)\s*\[(.*)\]\s*$", re.MULTILINE)
_FINAL = re.compile(r"Final\s+Answer\s*:", re.IGNORECASE)

SYSTEM_PROMPT = """You reproduce algorithms from research papers as Python code inside an \
existing repository. You implement the body of one function.

Write the body as a sequence of reasoning steps. Before each step put a comment block:
# ---------------------------------------------------------------------------
# Snippet 1: <what this step does and which part of the paper it implements>
# ---------------------------------------------------------------------------
# [Begin Snippet 1]
<code of the step>
# [End Snippet 1]
Number the snippets 1, 2, 3, ... in order. Statements that belong to no step (the final \
return) may stand outside the markers.
{tools}
When you are done, write:
Final Answer:
```python
<the function body, without the def line>
```"""

TOOLS = """
You may look things up first, one action per reply, then wait for the Observation:
Thought: <why you need it>
Action: SearchPaper[<words>]          sections of the paper matching the words
Action: SearchSection[<label>]        a section by its \\label or title
Action: SearchLiterature[<bib key or title> | <words>]   a paper the paper cites
Action: SearchCode[<name>]            a class/function/method/variable of the repository
Action: SearchFile[<path>]            a file of the repository
"""

TASK_PROMPT = """The paper describes the algorithm in this LaTeX excerpt:
{latex}

Implement the body of this function in `{path}` ({kind} `{namespace}`):
```python
{signature}
{docstring}
```"""


@dataclass
class AgentResult:
    """One task's answer and how it was reached."""

    code: str
    transcript: list[dict[str, str]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    finished: bool = False


def task_prompt(spec: TaskSpec) -> str:
    docstring = '    """' + (spec.docstring.strip() or "(no description)") + '\n    """'
    return TASK_PROMPT.format(
        latex=spec.latex_code.strip(),
        path=spec.file_path,
        kind=spec.type,
        namespace=spec.namespace,
        signature=spec.signature.strip("\n"),
        docstring=docstring,
    )


def run_action(lookups: ScireplicateLookups, name: str, argument: str) -> str:
    """The observation text for one action (errors become observations, not crashes)."""
    arg = argument.strip()
    if name == "SearchPaper":
        hits = lookups.search_paper(arg)
        text = "\n\n".join(f"[{h.title}] {h.text}" for h in hits) or "no matching section"
    elif name == "SearchSection":
        hit = lookups.search_section(arg)
        text = f"[{hit.title}] {hit.text}" if hit else "no such section"
    elif name == "SearchLiterature":
        ref, _, query = arg.partition("|")
        lit = lookups.search_literature(ref.strip(), query.strip())
        if lit is None:
            text = "no such cited paper"
        else:
            parts = [f"{lit.title} [{lit.bib_key}]", lit.abstract or ""]
            parts += [f"cited as: {s}" for s in lit.citing_sentences]
            parts += [f"[{s.title}] {s.text}" for s in lit.sections]
            text = "\n".join(p for p in parts if p)
    elif name == "SearchCode":
        code_hits = lookups.search_code(arg)
        text = "\n\n".join(f"# {h.path}\n{h.source}" for h in code_hits) or "no definition"
    elif name == "SearchFile":
        file_hit = lookups.search_file(arg)
        text = f"# {file_hit.path}\n{file_hit.content}" if file_hit else "no such file"
    else:
        text = f"unknown action {name!r}; use one of {', '.join(ACTIONS)}"
    if len(text) > OBSERVATION_LIMIT:
        text = text[:OBSERVATION_LIMIT] + "\n[... truncated]"
    return text


def final_code(text: str) -> str:
    """The code after ``Final Answer:`` (its python block, else the text itself)."""
    match = _FINAL.search(text)
    tail = text[match.end() :] if match else text
    return strip_code_fence(tail).strip("\n") + "\n" if "```" in tail else tail.strip() + "\n"


def solve(
    client: Any,
    spec: TaskSpec,
    lookups: ScireplicateLookups | None,
    *,
    max_turns: int = 8,
    max_tokens: int | None = None,
) -> AgentResult:
    """The ReAct loop for one task (``lookups=None``: the No Agent setting, one call)."""
    system = SYSTEM_PROMPT.format(tools=TOOLS if lookups is not None else "")
    messages: list[dict[str, str]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task_prompt(spec)},
    ]
    result = AgentResult(code="")
    params: dict[str, Any] = {"stop": ["Observation:"]}
    if max_tokens:
        params["max_tokens"] = max_tokens
    turns = max_turns if lookups is not None else 0
    for _ in range(turns):
        reply = client.chat(messages, **params).text
        messages.append({"role": "assistant", "content": reply})
        if _FINAL.search(reply):
            result.code, result.finished = final_code(reply), True
            break
        actions = _ACTION.findall(reply)
        if not actions:
            messages.append(
                {"role": "user", "content": "Reply with one Action or the Final Answer."}
            )
            continue
        name, argument = actions[0]
        result.actions.append(f"{name}[{argument}]")
        assert lookups is not None  # without lookups, turns is 0 and this loop never runs
        observation = run_action(lookups, name, argument)
        messages.append({"role": "user", "content": f"Observation: {observation}"})
    if not result.finished:
        messages.append({"role": "user", "content": "Write the Final Answer now."})
        reply = client.chat(messages, **params).text
        messages.append({"role": "assistant", "content": reply})
        result.code, result.finished = final_code(reply), bool(_FINAL.search(reply))
    result.transcript = messages
    return result


def implementation_records(
    spec: TaskSpec, code: str, generation_id: str, transcript: Sequence[Mapping[str, str]]
) -> list[Any]:
    """Implementation + its reasoning steps and data flow for one generated answer."""
    from scholarkg.loaders.scireplicate import code_sha, codetask_id, graph_lines
    from scholarkg.schema.records import ReasoningStep
    from scholarkg.schema.scireplicate import DataFlow, HasStep, Implementation, Implements

    graph = build_reasoning_graph(code)
    impl = Implementation(
        task=codetask_id(spec),
        kind="generated",
        run_id=generation_id,
        code=code,
        code_sha=code_sha(code),
        parse_error=graph.parse_error,
        reasoning=json.dumps(list(transcript), ensure_ascii=False),
    )
    records: list[Any] = [impl, Implements(start=impl.id, end=impl.task)]
    weights = graph.weights()
    lines = graph_lines(code)
    for step in graph.steps:
        node = ReasoningStep(
            id=f"{impl.id}/step/{step.snippet}",
            implementation=impl.id,
            ordinal=step.snippet,
            text=step.text,
            weight=weights.get(step.snippet),
            start_line=step.start,
            end_line=step.end,
            code="\n".join(lines[step.start - 1 : step.end]),
        )
        records += [node, HasStep(start=impl.id, end=node.id)]
    for a, b in sorted(graph.edges):
        records.append(DataFlow(start=f"{impl.id}/step/{a}", end=f"{impl.id}/step/{b}"))
    return records


def generate_answers(
    store: GraphReader,
    specs: Sequence[TaskSpec],
    source: AnswerSource,
    options: Mapping[str, Any],
    progress: StageProgress | None = None,
) -> Answers:
    """Answers from a model for every task; each stored as a generated Implementation."""
    from scholarkg.loaders.writer import RecordWriter

    client = source.client
    generation_id = f"gen-{uuid.uuid4().hex[:12]}"
    with_tools = options["agent"] != "none"
    codes: dict[str, str] = {}
    raw: dict[str, str] = {}
    actions: dict[str, list[str]] = {}
    graph = full_store(store, "the agent's answers (written to the graph as it goes)")
    with RecordWriter(graph, batch_size=500) as writer:
        for k, spec in enumerate(specs):
            key = f"{spec.paper_index}:{spec.task_index}"
            lookups = ScireplicateLookups(store, task=key) if with_tools else None
            result = solve(
                client,
                spec,
                lookups,
                max_turns=int(options["max_turns"]),
                max_tokens=options.get("max_tokens") or source.params.get("max_tokens"),
            )
            codes[spec.uid] = result.code
            replies = [m["content"] for m in result.transcript if m.get("role") == "assistant"]
            raw[spec.uid] = replies[-1] if replies else ""
            actions[spec.uid] = result.actions
            for record in implementation_records(
                spec, result.code, generation_id, result.transcript
            ):
                writer.add(record)
            if progress is not None:
                progress("answer", k + 1, len(specs))
    model = str(getattr(client, "model", "model"))
    return Answers(
        by_instance=codes,
        source=source,
        params={
            "agent": options["agent"],
            "max_turns": int(options["max_turns"]),
            "max_tokens": options.get("max_tokens"),
        },
        models={"llm": model},
        extra={
            "generation_id": generation_id,
            "usage": client.usage.as_dict() if hasattr(client, "usage") else {},
            "actions": actions,
        },
        prompts={
            "scireplicate-system": SYSTEM_PROMPT,
            "scireplicate-task": TASK_PROMPT,
            "scireplicate-tools": TOOLS,
        },
        raw=raw,
    )
