"""Reading a metrics body: series and samples past what was asked for are cut, and the cut is said."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.models.fast import ONE_PASS_FROM
from core.models.pages import ShapeError, json_type, object_in_one_pass, parse_json, parse_object
from core.models.runai import MetricSeries, MetricsResponse

# One series per label set: a workload's memory usage is one, per-GPU or per-pod types a few dozen at most.
MAX_SERIES_PER_TYPE = 64


def read_metrics(
    raw: bytes, max_series: int, samples: int, what: str, *, one_pass_from: int = ONE_PASS_FROM
) -> tuple[MetricsResponse, list[str]]:
    """The response and what was cut from it; ShapeError when the body or its envelope is unreadable."""
    response = object_in_one_pass(raw, MetricsResponse, one_pass_from)
    if response is not None:  # clean throughout, so cutting after reading keeps what cutting before would
        return response, _trim_series(response.measurements or [], _model_values, max_series, samples)
    body = parse_json(raw, "body")
    if isinstance(body, dict) and not isinstance(body.get("measurements"), list | None):
        # The envelope itself is wrong: dropping the field would read as "no series" instead of "unreadable".
        raise ShapeError(f"expected 'measurements' to be a list, got {json_type(body['measurements'])}")
    series = body.get("measurements") if isinstance(body, dict) else None
    cuts = _trim_series(series or [], _raw_values, max_series, samples)
    return parse_object(body, MetricsResponse, what), cuts


def _raw_values(item: Any) -> list[Any] | None:
    values = item.get("values") if isinstance(item, dict) else None
    return values if isinstance(values, list) else None


def _model_values(item: MetricSeries) -> list[Any] | None:
    return item.values


def _trim_series(
    series: list[Any], values_of: Callable[[Any], list[Any] | None], max_series: int, samples: int
) -> list[str]:
    """Cut, in place, series and samples beyond what was asked for; returns what was cut, for the record.

    Like a page longer than its limit, an answer holding more than it was asked for is not read past that:
    parsing it would cost time and memory out of proportion to anything a diagnosis could learn from it.
    ``series`` are decoded JSON objects or parsed models; ``values_of`` gives one's list of samples.
    """
    cuts: list[str] = []
    if len(series) > max_series:
        cuts.append(
            f"measurements: {len(series)} series where at most {max_series} fit the types asked for; "
            f"the {len(series) - max_series} past those were not read"
        )
        del series[max_series:]
    extra = 0
    for item in series:
        values = values_of(item)
        if values is not None and len(values) > samples:
            extra += len(values) - samples
            del values[samples:]
    if extra:
        cuts.append(f"measurements: {extra} samples beyond the {samples} per series asked for were not read")
    return cuts
