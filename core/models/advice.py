"""Advice as data: a sentence of the report that offers something to do which the command line and the app offer
in different ways (a flag to add, a key to press) holds that thing as an action key, not as words.

The engine writes such a sentence as parts: plain words and `Do` steps. Each front end words the steps from its
own table: the command line's table is here, because the report's text fields (`nextAction`, `recommendations`,
`notes`, which every renderer and the JSON carry) are in the command line's words; the app's is in the app. The
engine itself never names a flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    """What a user can do next that each front end offers its own way."""

    GIVE_WORKLOAD_ID = "give_workload_id"  # name the run meant by its id; in the app, choose its row
    USE_ACTIVE = "use_active"  # diagnose the name's current (Running or Pending) submission instead
    DROP_ACTIVE = "drop_active"  # diagnose the name's last terminal submission instead
    WIDEN_LOOKBACK = "widen_lookback"  # read further back in time


@dataclass(frozen=True, slots=True)
class Do:
    """One action in a sentence. `form` picks the phrasing the sentence around it needs ("its" workload id,
    "that run's"); a table without that form uses its plain one ("")."""

    action: Action
    form: str = ""


Part = str | Do
# Each action's phrasings by form: "" is the plain one, and every table has it.
Words = Mapping[Action, Mapping[str, str]]

COMMAND_LINE: Words = {
    Action.GIVE_WORKLOAD_ID: {
        "": "give the workload id",
        "its": "give its workload id",
        "that run's": "give that run's workload id",
        "meant": "give the workload id of the run you mean",
    },
    Action.USE_ACTIVE: {"": "use --active for a current crash loop or start failure"},
    Action.DROP_ACTIVE: {"": "drop --active to diagnose the last terminal one"},
    Action.WIDEN_LOOKBACK: {"": "widen --lookback", "the window": "--lookback to widen the window"},
}


def _starts_sentence(before: str) -> bool:
    tail = before.rstrip()
    return not tail or tail.endswith((".", "?", "!"))


def worded(parts: Iterable[Part], words: Words) -> str:
    """The sentence with each step said from `words`; a step that opens a sentence starts with a capital."""
    out = ""
    for part in parts:
        if isinstance(part, str):
            out += part
            continue
        forms = words[part.action]
        phrase = forms.get(part.form, forms[""])
        out += phrase[:1].upper() + phrase[1:] if _starts_sentence(out) else phrase
    return out


@dataclass(frozen=True, slots=True)
class Said:
    """A sentence of advice in parts. Its `text` is the command line's words, as the report's text fields hold it."""

    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        return worded(self.parts, COMMAND_LINE)

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(dict.fromkeys(p.action for p in self.parts if isinstance(p, Do)))

    def __add__(self, more: str) -> Said:
        return Said((*self.parts, more))


def said(*parts: Part) -> Said:
    return Said(parts)


def text_of(sentence: str | Said) -> str:
    """The command line's words of a sentence given as text or in parts."""
    return sentence if isinstance(sentence, str) else sentence.text
