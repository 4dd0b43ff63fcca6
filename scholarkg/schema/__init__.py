"""The scholarly graph model: typed records (``records``), stable ids (``ids``), DDL (``ddl``)."""

from scholarkg.schema.records import (
    Aspect,
    Author,
    Authorship,
    Citation,
    CitationContext,
    CodeTask,
    Comparison,
    Dataset,
    EdgeRecord,
    Experiment,
    Judgement,
    Leaderboard,
    Method,
    Metric,
    NodeRecord,
    Paper,
    Query,
    ReasoningStep,
    Result,
    Review,
    ReviewSegment,
    Task,
    Venue,
    Weakness,
)  # fmt: skip

__all__ = [
    "Aspect", "Author", "Authorship", "Citation", "CitationContext", "CodeTask", "Comparison",
    "Dataset", "EdgeRecord", "Experiment", "Judgement", "Leaderboard", "Method", "Metric",
    "NodeRecord", "Paper", "Query", "ReasoningStep", "Result", "Review", "ReviewSegment", "Task",
    "Venue", "Weakness",
]  # fmt: skip
