"""Column-name collisions that the Dask and Spark entry points must name (shared cases)."""

from __future__ import annotations

from typing import Any


def collision_cases(pdf: Any) -> list[tuple[Any, dict[str, str], str]]:
    """(frame, keyword arguments, expected message) for a pandas frame with columns qid and
    label: a qid named like the measure "map"'s output or the internal weight column, and a
    column named by two arguments."""
    return [
        (pdf.rename(columns={"qid": "map"}), {"qid": "map"}, "is also the measure 'map'"),
        (pdf.rename(columns={"qid": "__rankmetrics_weight__"}).assign(w=1.0),
         {"qid": "__rankmetrics_weight__", "weight": "w"}, "per-query weight's output column"),
        (pdf, {"score": "label"}, "label='label' and score='label' name the same column"),
        (pdf, {"qid": "label"}, "qid='label' and label='label' name the same column"),
    ]
