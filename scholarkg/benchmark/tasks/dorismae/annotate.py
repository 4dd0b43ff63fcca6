"""Optional: grade (unit, abstract) pairs with an LLM, to build DORIS-MAE relevance for new queries.

DORIS-MAE's judgements come from gpt-3.5 asked, per aspect and abstract, for one of four
verdicts; the grade mapping is the dataset's (``loaders.dorismae.grade_from_response``):
CONCUR 2, AGREE or DISPUTE 1, DISAGREE 0, anything else -1 (unparseable, kept and summed
as upstream does). This module sends the same question through the project's LLM client
(any OpenAI-compatible server, e.g. ``scholarkg llm serve``) and returns ``Judgement``
records with ``source="llm"`` that ``loaders.writer.write_records`` stores beside
the GPT ones; the relevance query reads one source at a time, so they never mix.

The prompt is ours, not the authors' (their prompt is longer and asks for reasoning first);
grades from a small local model are a pipeline check, not a substitute for the dataset's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from scholarkg.loaders.dorismae import grade_from_response
from scholarkg.schema.dorismae import aspect_node_id
from scholarkg.schema.records import Judgement

PROMPT = (
    "You check whether a scientific abstract satisfies one requirement of a literature "
    "search.\n\nRequirement: {unit}\n\nAbstract: {abstract}\n\n"
    "End your answer with exactly one verdict word: CONCUR (fully satisfies), AGREE (mostly "
    "satisfies), DISPUTE (partly), DISAGREE (does not satisfy)."
)


def annotate_pairs(
    client: Any,
    units: Mapping[str, str],
    abstracts: Mapping[str, tuple[str, str]],
    *,
    concurrency: int = 2,
    max_tokens: int = 48,
    progress: Callable[[int], None] | None = None,
) -> list[Judgement]:
    """One LLM verdict per (unit, abstract) pair, as ``JUDGED {source: "llm"}`` records.

    ``units``: aspect id -> text; ``abstracts``: abstract id -> (Paper id, text). Every pair
    is asked (the dataset grades the whole pool against every unit).
    """
    pairs = [(u, a) for u in units for a in abstracts]
    prompts = [PROMPT.format(unit=units[u], abstract=abstracts[a][1]) for u, a in pairs]
    answers = client.complete_many(
        prompts, concurrency=concurrency, progress=progress, max_tokens=max_tokens
    )
    model = str(getattr(client, "model", "llm"))
    out = []
    for (u, a), completion in zip(pairs, answers, strict=True):
        out.append(
            Judgement(
                start=aspect_node_id(u),
                end=abstracts[a][0],
                score=float(grade_from_response(completion.text)),
                source="llm",
                annotator=model,
                key=f"llm:{model}:{u}:{a}",
            )
        )
    return out
