"""The one error for a request that cannot be run as given (options that clash, a window not understood, an id
that is not one): the engine, the commands and the app raise and catch this class alone, and its message says
what to supply. Kept apart from the engine so the app can use it before the engine loads.

A message about one of the request's options names it as data (`Opt`), not as a flag: each front end names it
its own way when it says the message (the command line as its flag, `--max-workloads`; an MCP tool as its
argument, `max_workloads`; the app, and `str()`, in plain words). The engine itself never names a flag. The same
holds for any other sentence of the engine that names an option (a message about the watch's state file, the
report's pointer to every line, why Tier 2 was not read): a `Sentence`, or an error that is `Worded`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Opt:
    """An option, named in a sentence: `name` is its key (snake_case: `cluster_id`, `since`), `said` the words a
    sentence uses for it, if any ("a cluster id"), which a front end follows with its own name. `plainly` stands
    for the option in plain words where a front end names it alone, without `said` ("--state FILE is a
    directory" is "the state file FILE is a directory"); without it, plain words say its key."""

    name: str
    said: str = ""
    plainly: str = ""


Namer = Callable[[str], str]  # an option's key -> how a front end names it


def plain(name: str) -> str:
    """An option in plain words (`max_workloads` -> "max workloads")."""
    return name.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence in parts: plain words, and options for each front end to name."""

    parts: tuple[str | Opt, ...]

    def worded(self, namer: Namer | None = None) -> str:
        """The sentence with each option named by `namer` (after its words, in brackets, when it has some); with
        none, each option in plain words."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif namer is None:
                out.append(part.said or part.plainly or plain(part.name))
            else:
                out.append(f"{part.said} ({namer(part.name)})" if part.said else namer(part.name))
        return "".join(out)

    def __str__(self) -> str:
        return self.worded()


def sentence(*parts: str | Opt) -> Sentence:
    return Sentence(parts)


class Worded(Exception):
    """An error whose message names options as data: `str()` names them in plain words, `worded(namer)` as a
    front end names them."""

    def __init__(self, *parts: str | Opt) -> None:
        self.sentence = Sentence(parts)
        super().__init__(self.sentence.worded())

    def worded(self, namer: Namer | None = None) -> str:
        return self.sentence.worded(namer)


class UsageError(Worded, ValueError):
    """The request cannot be run as given; the message says what to supply (an argparse-style error, exit 2)."""
