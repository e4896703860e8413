"""Object names that Kubernetes' own messages quote are names, not credentials: they are kept.

`secret "ngc-key-2" not found`, `couldn't find key HF_TOKEN in Secret runai-nlp/hf-token-v2`,
`configmap "train-cfg-3" not found`, `object "runai-nlp"/"ngc-key-2" not registered`: the name is the cause
the report exists to show (and its advice names it too). The rules that judge a value by its neighbour
(`secret <value>`, `key <value>`) would take a name with digits for a key, so before they run each such name is
set aside (`set_aside`) and put back afterwards (`put_back`).

Only what Kubernetes can call an object is set aside: a lower-case DNS name (and a Secret key's own
characters for the key), in the exact wording kubelet and the API server write, never a value with a
provider's token shape (a `dapi...` or `ghp_...` is hidden wherever it stands).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# RFC 1123 subdomain: what Secret, ConfigMap and PVC names are.
_NAME = r"[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?"
_NAMESPACE = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_KEY = r"[-._A-Za-z0-9]{1,253}"
_RESOURCE = r"secrets?|configmaps?|persistentvolumeclaims?|serviceaccounts?"
# What follows `<resource> "<name>"` in the API server's and kubelet's errors.
_FOLLOWER = r"not found|is forbidden|already exists|is invalid|is being deleted|not registered"
_WORDINGS = re.compile(
    rf"\b(?i:{_RESOURCE})[ \t]+\"(?P<n1>{_NAME})\"(?=[ \t]+(?:{_FOLLOWER})\b)"
    rf"|couldn't find key (?P<key>{_KEY}) in (?:Secret|ConfigMap) (?P<ns>{_NAMESPACE})/(?P<n2>{_NAME})(?![-a-z0-9.])"
    rf"|\bobject \"(?P<ons>{_NAMESPACE})\"/\"(?P<n3>{_NAME})\" not registered"
)
# Stand-ins: one private-use character per name. Text that holds one already is not touched (nothing is set
# aside, so the rules judge it as before: hiding more, never less).
_FIRST = 0xE000
_LAST = 0xF8FF
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
# Literals every wording holds: a text without any of them (most logs) is not searched at all.
_LITERALS = (
    '" not found',
    '" is forbidden',
    '" already exists',
    '" is invalid',
    '" is being deleted',
    '" not registered',
    "couldn't find key ",
)

Kept = list[str]


def set_aside(text: str, shaped: Callable[[str], bool]) -> tuple[str, Kept]:
    """`text` with each name Kubernetes' wording quotes replaced by a stand-in, and the names in order.

    `shaped(value)` says whether a value has a provider's token shape: such a value is never set aside.
    """
    if not any(literal in text for literal in _LITERALS):
        return text, []
    if _PRIVATE_USE.search(text) is not None:
        return text, []
    kept: Kept = []
    out: list[str] = []
    pos = 0
    for match in _WORDINGS.finditer(text):
        for group in ("n1", "key", "ns", "n2", "ons", "n3"):
            start, end = match.span(group)
            if start < 0 or _FIRST + len(kept) > _LAST:
                continue
            value = text[start:end]
            if shaped(value):
                continue
            out.append(text[pos:start])
            out.append(chr(_FIRST + len(kept)))
            kept.append(value)
            pos = end
    if not kept:
        return text, []
    out.append(text[pos:])
    return "".join(out), kept


def put_back(text: str, kept: Kept) -> str:
    """`text` with every stand-in `set_aside` wrote replaced by its name again."""
    if not kept:
        return text
    return _PRIVATE_USE.sub(lambda m: kept[ord(m[0]) - _FIRST] if ord(m[0]) - _FIRST < len(kept) else "", text)
