"""runai-triage core: models, sources, the simulator and the diagnosis. Never imports Textual."""

import os
import sys

__version__ = "0.1.0"

# httpx's package init imports its command-line client whenever click is installed (it is: the MCP server's
# uvicorn needs it), and with it click, pygments and rich's syntax highlighting: 60-100 ms of every start-up,
# for a tool this program never runs. With the module marked absent, httpx keeps its stand-in `httpx.main`.
# Nothing changes when httpx was imported first (its client is the same either way).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

# pydantic hands every value it validates to the plugins installed in the environment (an observability SDK,
# say). Here those values are cluster data and credentials, which must not leave through a third party's hook;
# and finding plugins scans every installed distribution's entry points at the first model build, on the path
# to the first rows. A user who sets the variable keeps their choice.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
