"""Readers for the released AAAR-1.0 task folders and the ReviewCritique JSONL files.

Two layers, so that scoring never needs a graph: ``parse_*`` functions read the released
layouts into small dataclasses (what ``bench score`` uses), and ``*_groups`` functions turn
those into graph records grouped per source record (what ``scholarkg load`` writes through
the resumable writer). Layouts (the released ``RenzeLou/AAAR-1.0`` data layouts):

* EqInfer ``Equation_Inference/equation.1049.json``: a JSON array of ``{context_before,
  context_after, options, answer[, options_list]}``. Without ``options_list`` the four
  equations are parsed from the ``"(A). `...`;\\n(B). ..."`` string.
* ExpDesign ``Experiment_Design/<arxiv_id>/data_text.json``: ``{id, input: [LaTeX lines],
  output: {"What experiments do you suggest doing?": [...], "Why do you suggest these
  experiments?": [...]}}`` (+ ``images/``).
* Weakness ``Paper_Weakness/<openreview_id>/data_text.json``: ``{ID, track, input: {title,
  abstractText, sections: [{heading, text}]}, output: [[weakness, ...] per reviewer]}`` (+
  ``<id>-Figure*.png`` / ``<id>-Table*.png`` images). Old demo files say ``Conferece`` (sic)
  for ``track`` and carry ``review_num`` / ``item_num``.
* ReviewCritique ``ReviewCritique.jsonl`` / ``ReviewCritique_LLM.jsonl``: one paper per line,
  ``{decision, title, body_text, <review key>: {review: [segment], score: {...}}}``; segments
  ``{segment_text, topic_class_1, topic_class_2, reliability, explanation, error_type}``.

Every file may hold bare ``NaN`` tokens (Python's ``json`` reads them); NaN becomes ``None``.
Errors name the file, the record (array index or line) and the field as a JSON path.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, overload

from scholarkg.errors import InputError
from scholarkg.loaders.base import validating
from scholarkg.schema import aaar as ar
from scholarkg.schema import ids
from scholarkg.schema.records import EdgeRecord, NodeRecord, Paper, Review, ReviewSegment, Weakness
from scholarkg.schema.records import Experiment as ExperimentRecord
from scholarkg.textio import iter_json_lines, load_json

log = logging.getLogger(__name__)

AaarTask = Literal["eqinfer", "expdesign", "weakness"]
AAAR_TASKS: tuple[str, ...] = ("eqinfer", "expdesign", "weakness")
#: the released folder name of each task (a root folder holding them loads all three)
TASK_FOLDERS: dict[AaarTask, str] = {
    "eqinfer": "Equation_Inference",
    "expdesign": "Experiment_Design",
    "weakness": "Paper_Weakness",
}
DATA_FILE = "data_text.json"
EXP_KEY = "What experiments do you suggest doing?"
WHY_KEY = "Why do you suggest these experiments?"
LETTERS = ("A", "B", "C", "D")
#: keys of ReviewCritique's LLM-written reviews (other review keys are human ``review#N``)
RC_LLM_KEYS = ("claude_opus", "gpt4", "gemini_pro_1.5")

AnyRecord = NodeRecord | EdgeRecord
Group = tuple[int, list[AnyRecord]]


# --------------------------------------------------------------------------- JSON helpers


def denan(value: Any) -> Any:
    """``value`` with every float NaN replaced by ``None`` (the released files hold bare NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: denan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [denan(v) for v in value]
    return value


def read_json(path: Path) -> Any:
    """A whole JSON document, bare ``NaN`` accepted and mapped to ``None``."""
    return denan(load_json(path))


@overload
def _text(
    value: Any, *, path: Path, line: int | None, field: str, allow_none: Literal[False] = False
) -> str: ...
@overload
def _text(
    value: Any, *, path: Path, line: int | None, field: str, allow_none: bool
) -> str | None: ...
def _text(
    value: Any, *, path: Path, line: int | None, field: str, allow_none: bool = False
) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {type(value).__name__}", path=path, line=line, field=field
        )
    return value


def _str_list(value: Any, *, path: Path, line: int | None, field: str) -> list[str]:
    if not isinstance(value, list):
        raise InputError(
            f"expected a list of strings, got {type(value).__name__}",
            path=path,
            line=line,
            field=field,
        )
    return [_text(v, path=path, line=line, field=f"{field}[{i}]") for i, v in enumerate(value)]


# --------------------------------------------------------------------------- EqInfer


@dataclass(frozen=True)
class EqInferRecord:
    """One released EqInfer item (``index`` = 0-based position in the file)."""

    index: int
    context_before: str
    context_after: str
    options: str
    options_list: tuple[str, str, str, str]
    answer: str
    paper_id: str | None = None

    @property
    def uid(self) -> str:
        uid = ar.EqItem.make_id(
            {"context_before": self.context_before, "context_after": self.context_after,
             "options": self.options}
        )  # fmt: skip
        assert uid is not None  # EqItem has an id rule
        return uid


_OPTION_SPLIT = re.compile(r"(?:^|\n)\s*\(([A-D])\)\.\s*")


def parse_options(options: str) -> list[str] | None:
    """The four equations of an ``"(A). `x`;\\n(B). `y`; ..."`` string, or ``None``.

    Split at the ``(A).`` .. ``(D).`` markers that start a line, then drop the trailing ``;``
    and the enclosing backticks (the released fallback matches backtick pairs, which breaks
    on LaTeX quotes; the line markers do not).
    """
    parts = _OPTION_SPLIT.split(options.strip())
    # ["", "A", body, "B", body, ...]
    if len(parts) != 9 or parts[0].strip() or tuple(parts[1::2]) != LETTERS:
        return None
    out = []
    for body in parts[2::2]:
        body = body.strip()
        body = body.removesuffix(";").strip()
        if len(body) >= 2 and body.startswith("`") and body.endswith("`"):
            body = body[1:-1]
        out.append(body)
    return out


def parse_eqinfer(path: Path) -> list[EqInferRecord]:
    """Every item of an EqInfer file (a JSON array), validated; errors name index and field."""
    return list(iter_eqinfer(path))


def iter_eqinfer(path: Path) -> Iterator[EqInferRecord]:
    """The items of an EqInfer file one by one (a bad item stops after the good ones)."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError("expected a top-level JSON array of EqInfer items", path=path)
    for i, item in enumerate(data):
        rec = i + 1
        if not isinstance(item, dict):
            raise InputError("expected a JSON object", path=path, line=rec, field=f"[{i}]")
        for key in ("context_before", "context_after", "options", "answer"):
            if key not in item:
                raise InputError("missing field", path=path, line=rec, field=f"[{i}].{key}")
        before = _text(item["context_before"], path=path, line=rec, field=f"[{i}].context_before")
        after = _text(item["context_after"], path=path, line=rec, field=f"[{i}].context_after")
        options = _text(item["options"], path=path, line=rec, field=f"[{i}].options")
        answer = _text(item["answer"], path=path, line=rec, field=f"[{i}].answer").strip().upper()
        if answer not in LETTERS:
            raise InputError(
                f"answer must be one of A-D, got {item['answer']!r}",
                path=path, line=rec, field=f"[{i}].answer",
            )  # fmt: skip
        if item.get("options_list") is not None:
            olist = _str_list(item["options_list"], path=path, line=rec,
                              field=f"[{i}].options_list")  # fmt: skip
            if len(olist) != 4:
                raise InputError(
                    f"expected 4 options, got {len(olist)}",
                    path=path, line=rec, field=f"[{i}].options_list",
                )  # fmt: skip
        else:
            parsed = parse_options(options)
            if parsed is None:
                raise InputError(
                    "cannot split into four options '(A). ...' to '(D). ...' (and no "
                    "options_list)",
                    path=path, line=rec, field=f"[{i}].options",
                )  # fmt: skip
            olist = parsed
        paper = item.get("paper_id") or item.get("arxiv_id")
        yield EqInferRecord(i, before, after, options, (olist[0], olist[1], olist[2], olist[3]),
                            answer, str(paper) if paper else None)  # fmt: skip


def eqinfer_groups(path: Path) -> Iterator[Group]:
    """Records of each EqInfer item: EqItem, its four Equations and HAS_OPTION edges."""
    for item in iter_eqinfer(path):
        records: list[AnyRecord] = []
        paper_id = None
        if item.paper_id:
            paper = _paper_from_release_id(item.paper_id)
            paper_id = paper.id
            records.append(paper)
        eq = ar.EqItem(
            index=item.index, context_before=item.context_before,
            context_after=item.context_after, options=item.options, answer=item.answer,
            paper=paper_id,
        )  # fmt: skip
        records.append(eq)
        if paper_id:
            records.append(ar.HasItem(start=paper_id, end=eq.id))
        for letter, latex in zip(LETTERS, item.options_list, strict=True):
            option = ar.Equation(item=eq.id, letter=letter, latex=latex,
                                 correct=letter == item.answer)  # fmt: skip
            records += [option, ar.HasOption(start=eq.id, end=option.id, letter=letter)]
        yield item.index + 1, records


# --------------------------------------------------------------------------- paper folders


def _paper_from_release_id(release_id: str, **fields: Any) -> Paper:
    """An arXiv id gives ``arxiv:<id>``; anything else keeps the title rule or a scoped id."""
    if ids.normalize_arxiv_id(release_id):
        return Paper(arxiv_id=release_id, source="arxiv", **fields)
    if fields.get("title"):
        return Paper(**fields)
    return Paper(id=ids.scoped_id("paper", "aaar", release_id), **fields)


def data_files(folder: Path) -> list[Path]:
    """``<folder>/<id>/data_text.json`` files (also one level deeper, e.g. ``ICLR_2023/``),
    sorted by path so loads and scores are in a stable order."""
    if folder.is_file():
        return [folder]
    found = sorted(folder.glob(f"*/{DATA_FILE}")) or sorted(folder.glob(f"*/*/{DATA_FILE}"))
    if not found:
        raise InputError(f"no <paper id>/{DATA_FILE} files under the folder", path=folder)
    return found


def image_names(paper_dir: Path) -> list[str]:
    """PNG files shipped with a paper (``images/`` and the paper folder itself), by name."""
    names: set[str] = set()
    for pattern in ("*.png", "images/*.png", "images/*/*.png"):
        names.update(p.name for p in paper_dir.glob(pattern))
    return sorted(names)


def _figure_kind(name: str) -> Literal["figure", "table", "image"]:
    if re.search(r"-Figure\d*", name):
        return "figure"
    if re.search(r"-Table\d*", name):
        return "table"
    return "image"


@dataclass(frozen=True)
class ExpDesignPaper:
    """One ExpDesign paper: the pre-experiment LaTeX and the index-aligned gold lists."""

    id: str
    input_text: str
    experiments: list[str]
    explanations: list[str]
    images: list[str] = field(default_factory=list)
    path: str = ""
    #: image name -> (caption, page) from the pdffigures2 ``images/*_data_*.json``
    captions: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    @property
    def graph_id(self) -> str:
        """The Paper id this paper gets in the graph (``arxiv:<id>``)."""
        return _paper_from_release_id(self.id).id


def parse_expdesign(path: Path) -> ExpDesignPaper:
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path=path)
    pid = data.get("id", data.get("ID"))
    if pid in (None, ""):
        pid = path.parent.name
    for key in ("input", "output"):
        if key not in data:
            raise InputError("missing field", path=path, field=key)
    lines = _str_list(data["input"], path=path, line=None, field="input")
    output = data["output"]
    if not isinstance(output, dict):
        raise InputError("expected an object with the experiment and explanation lists",
                         path=path, field="output")  # fmt: skip
    if EXP_KEY not in output:
        raise InputError("missing field", path=path, field=f"output[{EXP_KEY!r}]")
    exps = _str_list(output[EXP_KEY], path=path, line=None, field=f"output[{EXP_KEY!r}]")
    whys = _str_list(output.get(WHY_KEY, []), path=path, line=None,
                     field=f"output[{WHY_KEY!r}]")  # fmt: skip
    if whys and len(whys) != len(exps):
        raise InputError(
            f"{len(exps)} experiments but {len(whys)} explanations (the lists are index-aligned)",
            path=path, field=f"output[{WHY_KEY!r}]",
        )  # fmt: skip
    if not exps:
        raise InputError("empty experiment list", path=path, field=f"output[{EXP_KEY!r}]")
    return ExpDesignPaper(str(pid), "".join(lines), exps, whys, image_names(path.parent),
                          str(path), figure_captions(path.parent))  # fmt: skip


def expdesign_records(paper: ExpDesignPaper) -> list[AnyRecord]:
    node = _paper_from_release_id(paper.id)
    out: list[AnyRecord] = [node]
    section = ar.Section(paper=node.id, ordinal=0, text=paper.input_text, kind="pre-experiment")
    out += [section, ar.HasSection(start=node.id, end=section.id, ordinal=0)]
    out += _figure_records(node.id, paper.images, paper.captions)
    for k, text in enumerate(paper.experiments, start=1):
        exp = ExperimentRecord(paper=node.id, ordinal=k, text=text)
        out += [exp, ar.HasExperiment(start=node.id, end=exp.id, ordinal=k)]
        if paper.explanations:
            why = ar.Explanation(experiment=exp.id, text=paper.explanations[k - 1])
            out += [why, ar.ExplainedBy(start=exp.id, end=why.id)]
    return out


def figure_captions(paper_dir: Path) -> dict[str, tuple[str, int | None]]:
    """``{image name: (caption, page)}`` from the pdffigures2 files the release ships.

    The Weakness/ExpDesign per-paper folders carry ``images/<venue>_data_<id>.json``: a list
    of ``{"caption", "figType", "name", "page", "renderURL", ...}`` (``renderURL`` is the PNG
    name). A file that is not such a list is skipped: captions are a convenience, and the
    PNGs load without them.
    """
    out: dict[str, tuple[str, int | None]] = {}
    for meta in sorted(paper_dir.glob("images/*_data_*.json")):
        try:
            items = read_json(meta)
        except InputError as err:
            log.warning("figure captions not read: %s", err)
            continue
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("renderURL"), str):
                continue
            caption = item.get("caption")
            page = str(item.get("page", "")).strip()
            if isinstance(caption, str) and caption.strip():
                name = Path(item["renderURL"]).name
                out[name] = (caption.strip(), int(page) if page.isdigit() else None)
    return out


def _figure_records(
    paper_id: str, names: Sequence[str], captions: dict[str, tuple[str, int | None]]
) -> list[AnyRecord]:
    out: list[AnyRecord] = []
    for name in names:
        caption, page = captions.get(name, (None, None))
        fig = ar.Figure(
            paper=paper_id, name=name, kind=_figure_kind(name), caption=caption, page=page
        )
        out += [fig, ar.HasFigure(start=paper_id, end=fig.id)]
    return out


@dataclass(frozen=True)
class WeaknessPaper:
    """One Weakness paper: its text as released and one weakness list per reviewer."""

    id: str
    track: str | None
    title: str
    abstract: str
    sections: list[tuple[str | None, str]]
    reviewers: list[list[str]]
    images: list[str] = field(default_factory=list)
    path: str = ""
    #: image name -> (caption, page) from the pdffigures2 ``images/*_data_*.json``
    captions: dict[str, tuple[str, int | None]] = field(default_factory=dict)

    @property
    def graph_id(self) -> str:
        """The Paper id this paper gets in the graph (title rule, else ``paper:openreview:``)."""
        if self.title:
            return Paper(title=self.title).id
        return ids.scoped_id("paper", "openreview", self.id)

    def prompt_text(self) -> str:
        """abstract, title and ``heading text`` lines, as the released scripts build it
        (``str(heading)``: a missing heading reads ``None`` there too)."""
        body = "\n".join(f"{h} {t}" for h, t in self.sections)
        return f"{self.abstract}\n\n{self.title}\n\n{body}"


def parse_weakness(path: Path) -> WeaknessPaper:
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path=path)
    pid = data.get("ID", data.get("id"))
    if pid in (None, ""):
        raise InputError("missing paper id", path=path, field="ID")
    track = data.get("track", data.get("Conferece"))  # old demo files: "Conferece" (sic)
    inp = data.get("input")
    if not isinstance(inp, dict):
        raise InputError("expected an object {title, abstractText, sections}", path=path,
                         field="input")  # fmt: skip
    title = _text(inp.get("title"), path=path, line=None, field="input.title", allow_none=True)
    abstract = _text(inp.get("abstractText"), path=path, line=None, field="input.abstractText",
                     allow_none=True)  # fmt: skip
    raw_sections = inp.get("sections") or []
    if not isinstance(raw_sections, list):
        raise InputError("expected a list", path=path, field="input.sections")
    sections: list[tuple[str | None, str]] = []
    for i, sec in enumerate(raw_sections):
        if not isinstance(sec, dict):
            raise InputError("expected {heading, text}", path=path, field=f"input.sections[{i}]")
        heading = sec.get("heading")
        text = _text(sec.get("text"), path=path, line=None, field=f"input.sections[{i}].text")
        sections.append((None if heading is None else str(heading), text))
    output = data.get("output")
    if not isinstance(output, list):
        raise InputError("expected one weakness list per reviewer", path=path, field="output")
    reviewers = [_str_list(lst, path=path, line=None, field=f"output[{k}]")
                 for k, lst in enumerate(output)]  # fmt: skip
    if "review_num" in data and data["review_num"] != len(reviewers):
        log.warning("%s: review_num %r but %d reviewer lists", path, data["review_num"],
                    len(reviewers))  # fmt: skip
    return WeaknessPaper(str(pid), None if track is None else str(track), title or "",
                         abstract or "", sections, reviewers, image_names(path.parent),
                         str(path), figure_captions(path.parent))  # fmt: skip


def weakness_records(paper: WeaknessPaper) -> list[AnyRecord]:
    fields: dict[str, Any] = {"source": "openreview",
                              "url": f"https://openreview.net/forum?id={paper.id}"}  # fmt: skip
    if paper.title:
        fields["title"] = paper.title
    if paper.abstract:
        fields["abstract"] = paper.abstract
    if paper.track:
        fields["venue"] = paper.track
    node = Paper(id=paper.graph_id, **fields)
    out: list[AnyRecord] = [node]
    for k, (heading, text) in enumerate(paper.sections):
        sec = ar.Section(paper=node.id, ordinal=k, title=heading, text=text)
        out += [sec, ar.HasSection(start=node.id, end=sec.id, ordinal=k)]
    out += _figure_records(node.id, paper.images, paper.captions)
    for r, items in enumerate(paper.reviewers, start=1):
        review = Review(paper=node.id, reviewer=str(r), source=ar.AAAR_SOURCE, writer="human")
        out += [review, ar.Reviews(start=review.id, end=node.id)]
        for k, text in enumerate(items, start=1):
            weak = Weakness(review=review.id, ordinal=k, text=text)
            out += [weak, ar.HasWeakness(start=review.id, end=weak.id, ordinal=k)]
    return out


def parse_folder(folder: Path, task: Literal["expdesign", "weakness"]) -> list[Any]:
    parse = parse_expdesign if task == "expdesign" else parse_weakness
    return [parse(p) for p in data_files(folder)]


def folder_groups(folder: Path, task: Literal["expdesign", "weakness"]) -> Iterator[Group]:
    """One group per paper file, in path order (a bad file stops the load at that paper)."""
    for n, path in enumerate(data_files(folder), start=1):
        if task == "expdesign":
            yield n, expdesign_records(parse_expdesign(path))
        else:
            yield n, weakness_records(parse_weakness(path))


# --------------------------------------------------------------------------- detection


def detect_task(path: Path) -> AaarTask:
    """Which AAAR-1.0 task a file or folder holds, from its content (not its name)."""
    if path.is_dir():
        eq = sorted(path.glob("*.json"))
        try:
            files = data_files(path)
        except InputError:
            files = []
        if not files:
            if eq:
                return detect_task(eq[0])
            raise InputError(
                f"neither an EqInfer JSON file nor <paper id>/{DATA_FILE} folders here",
                path=path,
            )
        path = files[0]
    data = read_json(path)
    if isinstance(data, list):
        if data and isinstance(data[0], dict) and "context_before" in data[0]:
            return "eqinfer"
        raise InputError("a JSON array but not EqInfer items (no context_before)", path=path)
    if isinstance(data, dict):
        if isinstance(data.get("output"), dict):
            return "expdesign"
        if isinstance(data.get("input"), dict) and "sections" in data["input"]:
            return "weakness"
    raise InputError("not an AAAR-1.0 EqInfer, ExpDesign or Weakness file", path=path)


def eqinfer_file(path: Path) -> Path:
    """The EqInfer JSON file of a file or an ``Equation_Inference`` folder."""
    if path.is_file():
        return path
    candidates = sorted(path.glob("equation*.json")) or sorted(path.glob("*.json"))
    if len(candidates) != 1:
        raise InputError(
            f"expected one EqInfer JSON file in the folder, found {len(candidates)}", path=path
        )
    return candidates[0]


def task_sources(path: Path, task: str | None = None) -> list[tuple[AaarTask, Path]]:
    """``(task, path)`` pairs to load: one task folder/file, or the three under a root folder.

    ``task`` may be unchecked input (``--task``): a name not in :data:`AAAR_TASKS` is an error.
    """
    if task is None and path.is_dir():
        subs = [(t, path / name) for t, name in TASK_FOLDERS.items() if (path / name).is_dir()]
        if subs:
            return [(t, eqinfer_file(p) if t == "eqinfer" else p) for t, p in subs]
    if task is None:
        task = detect_task(path)
    if task not in AAAR_TASKS:
        raise InputError(f"unknown AAAR task {task!r}; use {', '.join(AAAR_TASKS)}", field="task")
    checked = cast(AaarTask, task)  # one of AAAR_TASKS, checked above
    return [(checked, eqinfer_file(path) if task == "eqinfer" else path)]


def aaar_groups(task: AaarTask, path: Path) -> Iterator[Group]:
    if task == "eqinfer":
        return eqinfer_groups(path)
    return folder_groups(path, task)


# --------------------------------------------------------------------------- ReviewCritique


@dataclass(frozen=True)
class RCSegment:
    text: str
    deficient: bool
    explanation: str | None = None
    error_type: str | None = None
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class RCReview:
    key: str
    segments: list[RCSegment]
    score: dict[str, str] = field(default_factory=dict)

    @property
    def writer(self) -> str:
        return self.key if self.key in RC_LLM_KEYS or not self.key.startswith("review") else "human"


@dataclass(frozen=True)
class RCPaper:
    """One ReviewCritique line: the paper and its segmented, labelled reviews."""

    line: int
    title: str
    decision: str | None
    body_text: str
    reviews: list[RCReview]

    @property
    def id(self) -> str:
        return Paper(title=self.title).id


def _rating(score: dict[str, Any]) -> float | None:
    """The leading number of the ``Recommendation`` score (values like ``" 3: weak accept"``)."""
    raw = score.get("Recommendation") or score.get("Overall") or score.get("rating")
    if not isinstance(raw, str | int | float):
        return None
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", str(raw))
    return float(m.group(1)) if m else None


def parse_reviewcritique(path: Path) -> list[RCPaper]:
    """Every paper of a ReviewCritique JSONL file; NaN → ``None``; errors name line and field."""
    papers = list(iter_reviewcritique(path))
    if not papers:
        raise InputError("no papers in file", path=path)
    return papers


def parse_reliability(value: object, *, record: str | None = None) -> bool:
    """``True`` (deficient) for ``"No"``, ``False`` for ``"Yes"``; anything else is bad input.

    Case and surrounding spaces are ignored because the released labels are hand-typed.
    """
    if isinstance(value, str):
        v = value.strip().lower()
        if v == "no":
            return True
        if v == "yes":
            return False
    where = f"segment {record}: " if record else ""
    raise InputError(
        f"{where}reliability must be 'Yes' or 'No', got {value!r}", field="reliability"
    )


def iter_reviewcritique(path: Path) -> Iterator[RCPaper]:
    """The papers of a ReviewCritique file one by one (a bad line stops after the good ones)."""
    # one line at a time: a bad byte or line is reported with its line number
    for lineno, value in iter_json_lines(path):
        obj = denan(value)
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=path, line=lineno)
        title = _text(obj.get("title"), path=path, line=lineno, field="title")
        if not title.strip():
            raise InputError("empty title", path=path, line=lineno, field="title")
        body = obj.get("body_text") or ""
        reviews = []
        for key, value in obj.items():
            if not (isinstance(value, dict) and "review" in value):
                continue
            segs_raw = value["review"]
            if not isinstance(segs_raw, list):
                raise InputError("expected a list of segments", path=path, line=lineno,
                                 field=f"{key}.review")  # fmt: skip
            segs = []
            for k, seg in enumerate(segs_raw):
                where = f"{key}.review[{k}]"
                if not isinstance(seg, dict):
                    raise InputError("expected a segment object", path=path, line=lineno,
                                     field=where)  # fmt: skip
                text = _text(seg.get("segment_text"), path=path, line=lineno,
                             field=f"{where}.segment_text")  # fmt: skip
                try:
                    deficient = parse_reliability(seg.get("reliability"))
                except InputError as err:
                    raise InputError(str(err.args[0]) if err.args else "bad reliability",
                                     path=path, line=lineno,
                                     field=f"{where}.reliability") from err  # fmt: skip
                expl = seg.get("explanation")
                etype = seg.get("error_type")
                topics = tuple(str(seg[t]) for t in ("topic_class_1", "topic_class_2")
                               if seg.get(t) is not None)  # fmt: skip
                segs.append(RCSegment(
                    text, deficient,
                    None if expl is None else str(expl),
                    None if etype is None else str(etype).strip(),
                    topics,
                ))  # fmt: skip
            score_field = value.get("score")
            score: dict[str, Any] = score_field if isinstance(score_field, dict) else {}
            reviews.append(RCReview(key, segs, {k: str(v) for k, v in score.items()}))
        if not reviews:
            raise InputError("no review (an object with a 'review' segment list)",
                             path=path, line=lineno, field="review#1")  # fmt: skip
        decision = obj.get("decision")
        yield RCPaper(lineno, title, None if decision is None else str(decision), str(body),
                      reviews)  # fmt: skip


def reviewcritique_records(paper: RCPaper) -> list[AnyRecord]:
    node = Paper(title=paper.title)
    out: list[AnyRecord] = [node]
    if paper.body_text.strip():
        body = ar.Section(paper=node.id, ordinal=0, text=paper.body_text, kind="body")
        out += [body, ar.HasSection(start=node.id, end=body.id, ordinal=0)]
    for review in paper.reviews:
        rec = Review(
            paper=node.id, reviewer=review.key, source=ar.REVIEWCRITIQUE_SOURCE,
            decision=paper.decision, rating=_rating(review.score), writer=review.writer,
            text="\n".join(s.text for s in review.segments),
        )  # fmt: skip
        out += [rec, ar.Reviews(start=rec.id, end=node.id)]
        for k, seg in enumerate(review.segments, start=1):
            node_seg = ReviewSegment(
                review=rec.id, ordinal=k, text=seg.text, deficient=seg.deficient,
                explanation=seg.explanation, error_type=seg.error_type,
            )  # fmt: skip
            out += [node_seg, ar.HasSegment(start=rec.id, end=node_seg.id, ordinal=k)]
    return out


def reviewcritique_groups(path: Path) -> Iterator[Group]:
    for paper in iter_reviewcritique(path):
        with validating(path, paper.line):
            records = reviewcritique_records(paper)
        yield paper.line, records
