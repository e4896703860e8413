"""runai-triage core: models, sources, the simulator and the diagnosis. Never imports Textual."""

import sys

__version__ = "0.1.0"

# httpx's package init imports its command-line client whenever click is installed (it is: the MCP server's
# uvicorn needs it), and with it click, pygments and rich's syntax highlighting: 60-100 ms of every start-up,
# for a tool this program never runs. With the module marked absent, httpx keeps its stand-in `httpx.main`.
# Nothing changes when httpx was imported first (its client is the same either way).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
