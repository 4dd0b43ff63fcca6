"""The scholarly graph model: typed records (``records``), stable ids (``ids``), DDL (``ddl``)."""

from scholarkg.schema.records import (
    Aspect,
    Author,
    Authorship,
    Chunk,
    Citation,
    CitationContext,
    CodeTask,
    Comparison,
    Dataset,
    EdgeRecord,
    Experiment,
    HasChunk,
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
)

__all__ = [
    "Aspect", "Author", "Authorship", "Chunk", "Citation", "CitationContext", "CodeTask",
    "Comparison", "Dataset", "EdgeRecord", "Experiment", "HasChunk", "Judgement", "Leaderboard",
    "Method", "Metric", "NodeRecord", "Paper", "Query", "ReasoningStep", "Result", "Review",
    "ReviewSegment", "Task", "Venue", "Weakness",
]  # fmt: skip
