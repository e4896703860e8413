"""The evidence-gap type every source returns instead of raising, shared with the diagnosis engine.

A read that could not be made (refused, timed out, object gone, unparsable) is not an error for the caller: it
is a fact about what the diagnosis could not see, and the report lists it under ``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Missing:
    """One piece of evidence that could not be obtained.

    ``what`` names the evidence ("previous log of container main"), ``why`` says why in words a user can act
    on, ``source`` names the read in the report's vocabulary ("kubectl logs --previous").
    """

    what: str
    why: str
    source: str


Found: TypeAlias = T | Missing
"""``Found[X]`` is either the value X or the Missing that explains its absence."""
