"""AAAR-1.0 Weakness: list a paper's weaknesses; SN-P/SN-R/SN-F1 against every reviewer and
ITF-IDF diversity over the run (v1 protocol).

Paper text from the graph, rebuilt as the released scripts build it (abstract, title, then
``heading text`` per Section). Split-combine (default): the text is cut into ``len // window
+ 1`` equal pieces (``--window-words``, default 3,000), one call per piece, the lists
concatenated and renumbered; ``--no-split`` sends only the first window. Optional related-work
block (``--related-work``) is appended to every piece.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.metrics.lists import parse_numbered_list
from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    Instance,
    PredictionFormat,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.aaar.predictions import read_weakness_predictions
from scholarkg.benchmark.tasks.aaar.scoring import score_weakness
from scholarkg.benchmark.tasks.aaar.task import (
    MODEL_OPTIONS,
    RELATED_OPTIONS,
    SIMILARITY_OPTION,
    AaarTaskBase,
    file_models,
    head_words,
    match_ids,
    split_words,
)

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

COLUMNS = ("SN-F1", "SN-P", "SN-R", "ITF-IDF")
_SRC = "AAAR-1.0 Table (Weakness, v1), real data, W = 993"
#: the human-review ITF-IDF of the paper (reviewer selection unstated;
#: ``RenzeLou/AAAR-1.0:scripts/subtask2_metric.py``, ``subtask3_metric.py``)
HUMAN_ITF_IDF = 7.69
PUBLISHED = (
    PublishedRow("Human review", {"ITF-IDF": HUMAN_ITF_IDF}, _SRC),
    *(
        PublishedRow(label, dict(zip(COLUMNS, values, strict=True)), _SRC)
        for label, values in (
            ("GPT-4o", (47.73, 42.09, 55.48, 5.95)),
            ("Gemini 1.5 Pro", (48.75, 43.97, 55.08, 5.88)),
            ("o1-preview", (48.62, 42.54, 57.08, 5.63)),
            ("Claude 3.5 Sonnet", (47.85, 41.97, 56.00, 3.91)),
            ("Llama 3.1-70B", (42.78, 43.19, 42.70, 2.60)),
            ("OLMo-7B", (43.25, 40.38, 47.04, 2.45)),
            ("AI-SCI (GPT-4o)", (45.05, 40.02, 51.91, 2.23)),
        )
    ),
)
_NUM = re.compile(r"^\d+\.")


def combine_lists(lists: Sequence[Sequence[str]]) -> list[str]:
    """Concatenate per-window lists and renumber ``"k."`` prefixes 1..n, as released."""
    flat = [item for lst in lists for item in lst]
    return [_NUM.sub(f"{k}.", item, count=1) for k, item in enumerate(flat, start=1)]


class WeaknessTask(AaarTaskBase):
    name = "aaar-weakness"
    description = "AAAR-1.0 paper weaknesses: SN-P/R/F1 against reviewers, ITF-IDF diversity"
    metrics = (
        TaskMetric("SN-F1", "percent", description="per-paper F1, macro over papers"),
        TaskMetric("SN-P", "percent"),
        TaskMetric("SN-R", "percent"),
        TaskMetric("ITF-IDF", "score", description=f"not comparable across W; human "
                   f"reviews {HUMAN_ITF_IDF} in the paper"),
    )  # fmt: skip
    options = (
        TaskOption("window_words", int, 3000, "words per window (split) or kept (no split)"),
        TaskOption("split", bool, True, "split-combine over windows (--no-split: first window)"),
        TaskOption("open_model", bool, True, "list-parser fallback of open models"),
        SIMILARITY_OPTION,
        TaskOption("itf_idf_model", Path, None, "local model for ITF-IDF (default: bundled "
                   "all-MiniLM-L6-v2, the released script's model)"),
        *MODEL_OPTIONS,
        *RELATED_OPTIONS,
    )  # fmt: skip
    prediction_format = PredictionFormat(
        task="aaar-weakness",
        answer_field="weaknesses",
        description="paper id (graph or OpenReview id) -> the combined weakness list; 'raw' "
        "holds the model's reply per window",
    )
    layout = ReportLayout(
        title="AAAR-1.0 Weakness (SN in %, ITF-IDF score)",
        columns=COLUMNS,
        config_keys=("window_words", "split", "related_work", "similarity_model"),
        instance_label="paper",
        published=PUBLISHED,
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("window_words", "split", "related_work", "similarity_model", "itf_idf_model")
        return {k: (str(options[k]) if isinstance(options[k], Path) else options[k])
                for k in keys}  # fmt: skip

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        papers: dict[str, dict[str, Any]] = {}
        for r in store.run_named("aaar/weakness_reviews", {"source": "aaar"}):
            p = papers.setdefault(r["paper"], {"title": r["title"] or "",
                                               "abstract": r["abstract"] or "",
                                               "url": r["url"], "reviewers": {}})  # fmt: skip
            items = p["reviewers"].setdefault(r["reviewer"], [])
            if r["weakness"] is not None:
                items.append(r["weakness"])
        sections = self.sections(store, list(papers))
        related = self.related_work(store, list(papers), options)
        out = []
        for pid, p in papers.items():
            body = "\n".join(f"{s['heading']} {s['text']}" for s in sections.get(pid, [])
                             if s["kind"] == "section")  # fmt: skip
            reviewers = [p["reviewers"][k] for k in sorted(p["reviewers"], key=_reviewer_order)]
            release = (p["url"] or "").rsplit("id=", 1)[-1] if p["url"] else pid
            out.append(Instance(pid, {
                "text": f"{p['abstract']}\n\n{p['title']}\n\n{body}", "reviewers": reviewers,
                "release_id": release, "related": related.get(pid, ""),
            }))  # fmt: skip
        return out

    def windows(self, inst: Instance, options: Mapping[str, Any]) -> list[str]:
        window = int(options["window_words"])
        pieces = (split_words(inst.data["text"], window) if options["split"]
                  else [head_words(inst.data["text"], window)])  # fmt: skip
        rel = inst.data.get("related")
        return [f"{p}\n\n{rel}" if rel else p for p in pieces] or [""]

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        enc = {"encoder": self._name(options, itf=False), "itf_idf": self._name(options, itf=True)}
        if source.kind == "predictions":
            assert source.path is not None
            return Answers(self.read_predictions(source.path, instances), source,
                           params={"path": str(source.path)},
                           models={**file_models(source.path), **enc})  # fmt: skip
        template = self.prompt("weakness")
        flat = [
            (k, template.render(context=w))
            for k, inst in enumerate(instances)
            for w in self.windows(inst, options)
        ]
        replies, usage = self.generate(source.client, [p for _, p in flat], options,
                                       stage="windows", progress=progress)  # fmt: skip
        per: list[list[list[str]]] = [[] for _ in instances]
        raw: list[list[str]] = [[] for _ in instances]
        for (k, _), reply in zip(flat, replies, strict=True):
            per[k].append(parse_numbered_list(reply, open_model=bool(options["open_model"])))
            raw[k].append(reply)
        by = {i.id: combine_lists(lists) for i, lists in zip(instances, per, strict=True)}
        return Answers(by, source, params=dict(options),
                       models={"llm": source.client.model, **enc},
                       extra={"usage": usage, "calls": len(flat)},
                       prompts={"weakness": template.text},
                       raw={i.id: r for i, r in zip(instances, raw, strict=True)})  # fmt: skip

    def _name(self, options: Mapping[str, Any], *, itf: bool) -> str:
        from scholarkg.benchmark.metrics.similarity import AAAR_ITF_IDF_MODEL

        key = "itf_idf_model" if itf else "similarity_model"
        injected = self._itf_encoder if itf and self._itf_encoder else self._encoder
        if injected is not None:
            return str(getattr(injected, "name", type(injected).__name__))
        return str(options[key]) if options.get(key) else f"{AAAR_ITF_IDF_MODEL} (bundled)"

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        encoder, _ = self.encoder(options)
        itf, _ = self.itf_encoder(options)
        return score_weakness(
            [i.id for i in instances],
            [i.data["reviewers"] for i in instances],
            [answers.by_instance.get(i.id) for i in instances],
            encoder=encoder,
            itf_encoder=itf,
        )

    def released_instances(self, data: Path) -> list[Instance]:
        """The instances of a released Weakness folder, each reviewer's weaknesses as the graph
        stores them (the record layer's cleaning, whitespace stripped), so a run's answers
        rescore from the released files to exactly the run's numbers."""
        from scholarkg.loaders.aaar import parse_folder
        from scholarkg.schema.records import Weakness

        def as_stored(text: str) -> str:
            return Weakness(review="file", ordinal=0, text=text).text

        return [
            Instance(p.graph_id, {"release_id": p.id,
                                  "reviewers": [[as_stored(w) for w in r] for r in p.reviewers]})
            for p in parse_folder(data, "weakness")
        ]  # fmt: skip

    def read_predictions(self, path: Path, instances: Sequence[Instance]) -> dict[str, Any]:
        """Each paper's predicted weaknesses, by graph id or the release's paper id."""
        aliases = {i.id: [i.data["release_id"]] for i in instances}
        return match_ids(read_weakness_predictions(path), aliases, what="Weakness paper")


def _reviewer_order(key: str) -> tuple[int, str]:
    return (int(key), key) if key.isdigit() else (1 << 30, key)
