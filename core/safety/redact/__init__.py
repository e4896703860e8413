"""Hide credentials in untrusted cluster text: by the name they are stored under, by what stands next to them,
and by their own shape anywhere.

- names.py: env variables, flags, KEY=VALUE, JSON/YAML fields and mid-line `name: value` whose name holds a
  sensitive word (`API_KEY`, `clientSecret`, `client-key-data`), with the length kept where it helps tell
  "set but wrong" from "empty"; credential-ish names (`signature`) only with a key-like value (entropy.py);
- context.py: Authorization headers, URL passwords and tokens as URL users, an incoming webhook's path on any host,
  `mysql -p<pw>`, netrc, `wandb login <key>`, a 40-character AWS secret key next to `aws`, a vendor's key next to
  the vendor's name;
- providers.py: provider token formats (GitHub, GitLab, Slack, Stripe, SendGrid, npm, PyPI, Hugging Face,
  NVIDIA, OpenAI, Anthropic, GCP, AWS, Azure, Databricks, Twilio, Mailgun, ...), learnt from gitleaks and
  detect-secrets;
- pem.py: PEM private keys, also with the BEGIN or the END line cut off;
- secret_data.py: a Kubernetes Secret printed whole (its `data` and `stringData` values);
- wrapped.py: the rest of a token a log wrapped onto the next line;
- kube_wording.py: what is kept: the object names Kubernetes' own messages quote (`secret "ngc-key-2" not found`).

Every replacement starts with `<redacted` (or is `<empty>`), and every rule leaves such a value alone, so
running redact() on its own output changes nothing. scan.py runs the rules only where their literals occur.

Docker Hub rate-limit messages (`toomanyrequests: ...`) can name the account that hit the limit and carry a
`dckr_jti_...` request id tied to it; both are hidden, the rest of the message stays: it is the diagnosis.
"""

from core.safety.redact.base import EMPTY, REDACTED
from core.safety.redact.fields import (
    DROPPED_LAST_APPLIED,
    LAST_APPLIED,
    describe_secret_ref,
    redact_annotation,
    redact_env_value,
)
from core.safety.redact.names import is_sensitive_name
from core.safety.redact.scan import redact

__all__ = [
    "DROPPED_LAST_APPLIED",
    "EMPTY",
    "LAST_APPLIED",
    "REDACTED",
    "describe_secret_ref",
    "is_sensitive_name",
    "redact",
    "redact_annotation",
    "redact_env_value",
]
