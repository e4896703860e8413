"""redact(): run every rule, but only where one of its literals occurs, so a long log costs little more than a scan.

How a text is handled:
0. Object names that Kubernetes' own wording quotes (`secret "ngc-key-2" not found`) are set aside, so no rule
   takes a name for a key (kube_wording.py); they are put back at the end.
1. PEM private keys first (they span lines): whole blocks, cut-off heads and cut-off tails; then a Kubernetes
   Secret printed whole (its `data` values, secret_data.py).
2. One search for any rule's literal (`token`, `ghp_`, `://`, `hooks.slack.com`, ...), through a regex shaped
   as a trie of all literals, which is several times faster than an alternation or one `in` per literal.
3. Around each hit, a block of whole lines (a few KB) gets the rules whose literals it contains, in order:
   names first (they know a value's full extent), then contexts, then provider formats.
4. The few formats without a literal of their own (Twilio ids) run once over the whole text.
5. The rest of a credential a log wrapped onto the next line is hidden with it (wrapped.py: a token whose two
   halves make a provider's shape before the rules, the line after a redacted token after them).
Lines between hits are copied untouched. Every pattern is linear, so the whole is linear in the text.
"""

from __future__ import annotations

import functools
import re

from core.safety.redact.base import Rule
from core.safety.redact.context import CONTEXT_RULES
from core.safety.redact.kube_wording import put_back, set_aside
from core.safety.redact.names import NAME_RULES
from core.safety.redact.pem import redact_pem
from core.safety.redact.providers import PROVIDER_RULES, TWILIO
from core.safety.redact.secret_data import redact_secret_data
from core.safety.redact.wrapped import hide_wrapped, join_wrapped

RULES: tuple[Rule, ...] = (*NAME_RULES, *CONTEXT_RULES, *PROVIDER_RULES)
_WHOLE_TEXT_RULES: tuple[Rule, ...] = (TWILIO,)

# Lines near a hit are handled as one block, so text dense with hits costs a few regex calls per few
# kilobytes instead of several per line.
_BLOCK_REACH = 8192


def _trie_pattern(words: set[str]) -> str:
    """A regex that matches any of `words`, written as a trie so each position is tried once per branch."""
    root: dict[str, dict] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        ends_here = "" in node
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and not ends_here else "(?:" + "|".join(branches) + ")"
        return body + ("?" if ends_here else "")

    return emit(root)


_KEYWORDS = frozenset(keyword for rule in RULES for keyword in rule.keywords)
_TRIE = _trie_pattern(set(_KEYWORDS))
_TRIGGER = re.compile(_TRIE)
# The same literals found at every position (a lookahead does not consume), so no occurrence hides inside a
# longer neighbour. At each position the longest literal wins; the shorter ones it contains are implied.
_EVERY_LITERAL = re.compile(f"(?=({_TRIE}))")
_RULE_KEYWORDS: tuple[tuple[Rule, frozenset[str]], ...] = tuple((rule, frozenset(rule.keywords)) for rule in RULES)


@functools.lru_cache(maxsize=1024)
def _implied(found: str) -> frozenset[str]:
    return frozenset(keyword for keyword in _KEYWORDS if keyword in found)


def _lowered(text: str) -> str:
    # Only U+0130 (İ) lowers to two characters; mapping it first keeps the offsets of text and lowered aligned.
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text.replace("\u0130", "I").lower()
    return lowered


def _apply(block: str, lowered: str) -> str:
    """Run, in order, the rules whose literals occur in `block`."""
    present: set[str] = set()
    for found in set(_EVERY_LITERAL.findall(lowered)):
        present |= _implied(found)
    for rule, keywords in _RULE_KEYWORDS:
        if not keywords.isdisjoint(present):
            block = rule.sub(block)
    return block


def _provider_shaped(value: str) -> bool:
    """Whether a provider's token format (a `dapi...`, an `AKIA...`) would hide `value`."""
    lowered = value.lower()
    return any(rule.apply(value, lowered) != value for rule in (*PROVIDER_RULES, *_WHOLE_TEXT_RULES))


def redact(text: str) -> str:
    """Replace every credential found in `text` by name, context or shape; everything else is kept as is."""
    if not text:
        return text
    text, names = set_aside(text, _provider_shaped)
    text = join_wrapped(redact_secret_data(redact_pem(text)), _provider_shaped)
    text = _redact_rules(text)
    return put_back(hide_wrapped(text), names)


def _redact_rules(text: str) -> str:
    lowered = _lowered(text)
    out: list[str] = []
    pos = 0  # end of the text already copied to out
    while (hit := _TRIGGER.search(lowered, pos)) is not None:
        start = text.rfind("\n", pos, hit.start()) + 1 or pos
        end = text.find("\n", min(hit.end() + _BLOCK_REACH, len(text)))
        end = len(text) if end == -1 else end
        out.append(text[pos:start])
        out.append(_apply(text[start:end], lowered[start:end]))
        pos = end
    if out:
        out.append(text[pos:])
        text = "".join(out)
    for rule in _WHOLE_TEXT_RULES:
        text = rule.apply(text, "")
    return text
