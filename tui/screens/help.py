"""The key list, in one place: the help screen (`?`) and the command palette both read it from the bindings
of the screen in use and of the app, so neither can drift from what the keys really do."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


@dataclass(frozen=True, slots=True)
class KeyEntry:
    keys: tuple[str, ...]
    description: str
    action: str
    node: DOMNode
    help: str = ""  # what the palette says under the entry: the binding's tooltip, in words for people


def _bindings(node: DOMNode) -> Iterable[Binding]:
    # Our own classes' lists only, along the whole class chain (a subclass of the app keeps the app's keys);
    # Textual's built-in bindings (tab focus etc.) are not ours to document.
    raw: list[BindingType] = []
    for cls in reversed(type(node).__mro__):
        if cls.__module__.split(".")[0] == "tui":
            raw += cls.__dict__.get("BINDINGS", [])
    for item in raw:
        yield item if isinstance(item, Binding) else Binding(*item)


def _display(app: App[object], binding: Binding, key: str) -> str:
    if binding.key_display and "," not in binding.key:
        return binding.key_display
    return app.get_key_display(Binding(key.strip(), binding.action, binding.description))


def key_entries(screen: Screen[object], app: App[object]) -> list[KeyEntry]:
    """The documented keys of `screen` then `app`, with every key of one action on one line (and keys that
    share a description, such as the tab numbers, on one line too)."""
    entries: dict[tuple[int, str], KeyEntry] = {}
    for node in (screen, app):
        for binding in _bindings(node):
            description = binding.description or (binding.tooltip if binding.tooltip else "")
            if not description or not _acts_now(node, binding.action, screen, app):
                continue
            # "screen.next_page" bound on the screen is the same action as "next_page".
            action = binding.action.removeprefix("screen.") if node is screen else binding.action
            key = (id(node), description)
            shown = tuple(_display(app, binding, one) for one in binding.key.split(","))
            if key in entries:
                old = entries[key]
                keys = old.keys + tuple(k for k in shown if k not in old.keys)
                entries[key] = KeyEntry(keys, old.description, _one_action(old.action, action), node, old.help)
            else:
                entries[key] = KeyEntry(shown, description, action, node, binding.tooltip or description)
    return list(entries.values())


def _acts_now(node: DOMNode, action: str, screen: Screen[object], app: App[object]) -> bool:
    """Whether a key of the app's own does anything now: one that acts only in a moment that is over (enter
    while the tenant still opens) is not documented as if it did. A screen's own keys are all listed, whatever
    their state (the footer's `]` on the last page still has its help line)."""
    if node is screen:
        return True
    return app.check_action(action.partition("(")[0], ()) is not False


def _one_action(a: str, b: str) -> str:
    """The command a line of keys runs: keys of different actions on one line (the tab numbers) have none; an
    action and the same one with an argument (the picker's footer `]`, shown only while it can act) run the
    plain one."""
    if a == b:
        return a
    bare = a.split("(")[0]
    return bare if bare == b.split("(")[0] and bare in (a, b) else ""


def _joined(keys: tuple[str, ...]) -> str:
    # Runs of single digits read better as a range: "1-8" rather than "1 / 2 / ... / 8".
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}-{keys[-1]}"
    return " / ".join(keys)


class KeysProvider(Provider):
    """Command palette entries for the same actions the keys run (searchable by their description)."""

    def _key_commands(self) -> list[tuple[str, KeyEntry]]:
        screen = self.screen
        # With the palette or the help open on top, document the screen underneath.
        stack = [s for s in self.app.screen_stack if not isinstance(s, ModalScreen)]
        target = stack[-1] if stack else screen
        return [
            (f"{entry.description} ({_joined(entry.keys)})", entry)
            for entry in key_entries(target, self.app)
            if entry.action not in ("command_palette", "")
        ]

    async def _run_entry(self, entry: KeyEntry) -> None:
        await entry.node.run_action(entry.action)

    async def discover(self) -> Hits:
        for title, entry in self._key_commands():
            yield DiscoveryHit(title, partial(self._run_entry, entry), help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, entry in self._key_commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(title),
                    partial(self._run_entry, entry),
                    help=entry.help,
                )


class HelpScreen(ModalScreen[None]):
    """The keys of the screen underneath, read from its bindings."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "close", show=False),
        Binding("question_mark", "dismiss", "close", show=False),
        Binding("q", "dismiss", "close", show=False),
    ]

    def __init__(self, entries: list[KeyEntry], extra: str = "") -> None:
        super().__init__()
        self.entries = entries
        self._extra = extra

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for entry in self.entries:
            said = Text(entry.description)
            if entry.help and entry.help != entry.description:
                said.append(f" — {entry.help}", style="dim")
            table.add_row(Text(_joined(entry.keys)), said)
        with VerticalScroll(id="help-body"):
            yield Static(Text("Keys", style="bold"), id="help-title")
            yield Static(table, id="help-keys")
            if self._extra:
                yield Static(Text(self._extra), id="help-extra")
            yield Static(Text("esc, ? or q closes this help"), id="help-close")
