"""Is a value key-like? Shannon entropy over its alphabet, with a length floor and known look-alikes excluded.

Used only where a credential-ish name or a context word sits next to the value, never on free text: an
entropy test alone would hide every commit SHA, digest and UUID in a log. The idea and the thresholds follow
Yelp detect-secrets (`HighEntropyStringsPlugin`: base64 limit 4.5, hex 3.0, an all-digit penalty) and the
gitleaks generic rule (entropy 3.5 and a digit required); the floors here are lower than detect-secrets'
because a credential name next to the value is already strong evidence.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_HEX = frozenset("0123456789abcdefABCDEF")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Content digests name an image layer or a file; they are the opposite of a secret.
_DIGEST_PREFIXES = ("sha256:", "sha512:", "sha384:", "sha1:", "md5:", "blake2b:")
# The base64 alphabet (standard and URL-safe) plus the few characters tokens add (`.` in JWT-like values,
# `~` in Azure secrets); anything else (spaces, brackets, commas) means prose or structure, not a key.
_KEYLIKE = re.compile(r"[A-Za-z0-9+/=_.~-]+")
_WORDY = re.compile(r"[a-z]+(?:[-_.][a-z]+)*")  # lower-case words joined by separators: names, not keys
_SPECIAL = frozenset("+/=!@#$%^&*~?")
_BOOLEANS = frozenset({"true", "false", "none", "null", "nil", "yes", "no", "on", "off", "undefined"})


def shannon(value: str) -> float:
    """Bits per character of `value` (0 for an empty string)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(count / n * math.log2(count / n) for count in Counter(value).values())


def _excluded(value: str) -> bool:
    lowered = value.lower()
    return (
        lowered.startswith(_DIGEST_PREFIXES)
        or lowered.startswith(("/", "./", "../", "~/", "http:", "https:", "file:"))
        or _UUID.fullmatch(value) is not None
        or lowered in _BOOLEANS
    )


def looks_random(value: str) -> bool:
    """True for a key-like value: long enough, from a key alphabet, and with high entropy for its alphabet.

    Hex: at least 32 characters and 3.0 bits (a digits-only value pays a penalty, as in detect-secrets).
    Otherwise: at least 16 characters, two of lower / upper / digit, and 3.5 bits.
    A UUID, a content digest (`sha256:...`), a path or a URL is never key-like.
    """
    if len(value) < 16 or _KEYLIKE.fullmatch(value) is None or _excluded(value):
        return False
    if all(c in _HEX for c in value):
        if len(value) < 32:
            return False
        bits = shannon(value)
        if value.isdigit():
            bits -= 1.2 / math.log2(len(value))
        return bits >= 3.0
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    return classes >= 2 and shannon(value) >= 3.5


def credential_like(value: str) -> bool:
    """True for a value that could be a password or token where only a loose separator ties it to a name.

    `token: expired`, `password: incorrect`, `secret: db-creds`, `token: 512` and `auth: Failed` stay
    readable (a word, a name, a small number); `password: hunter2`, `token: AbC...` and anything key-like
    are credentials. Trailing sentence punctuation is not part of the judgement.
    """
    bare = value.rstrip(".,:;!?)]}")
    if len(bare) < 6 or _excluded(bare):
        return False
    if looks_random(bare):
        return True
    if bare.isdigit():
        return len(bare) >= 8  # a PIN-sized number is a count or a port far more often
    if _WORDY.fullmatch(bare) is not None:
        return False
    has_digit = any(c.isdigit() for c in bare)
    has_inner_upper = any(c.isupper() for c in bare[1:])
    has_special = any(c in _SPECIAL for c in bare)
    return has_digit or has_inner_upper or has_special
