"""What the redaction corpus is made of: the record of one credential, and random strings from a fixed seed per
kind (every value SYNTHETIC, shaped like the real thing), shared by corpus.py and corpus_more.py."""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


@dataclass(frozen=True)
class Credential:
    kind: str
    text: str  # how it appears: the credential with the context it usually comes with
    secret: str  # what must never be shown (the whole credential, or the secret part of the text)


class Gen:
    """Random strings from one seed per credential kind, so each value is stable and unique."""

    def __init__(self, kind: str) -> None:
        self.rng = random.Random(f"runai-triage-redaction-corpus/{kind}")

    def of(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def alnum(self, n: int) -> str:
        # Real tokens of this length always mix cases and digits; insist on it so no value is a plain word.
        while True:
            value = self.of(ALNUM, n)
            if any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value):
                return value

    def hex(self, n: int) -> str:
        return self.of(HEX, n)

    def digits(self, n: int) -> str:
        return self.of(string.digits, n)

    def b64(self, n: int) -> str:
        return self.of(B64, n)

    def password(self, n: int = 14) -> str:
        return self.alnum(n - 2) + self.of("!#%*+", 1) + self.of(string.digits, 1)


def url_secret(g: Gen, prefix: str, secret: str) -> tuple[str, str]:
    return f"request {prefix}{secret} answered 403", secret


def jwt(g: Gen) -> tuple[str, str]:
    header = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').decode().rstrip("=")
    claims = base64.urlsafe_b64encode(f'{{"sub":"system:serviceaccount:ns:{g.hex(6)}"}}'.encode()).decode()
    token = f"{header}.{claims.rstrip('=')}.{g.of(URLSAFE, 86)}"
    return f"service account token {token}", token
