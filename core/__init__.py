"""runai-triage core: models, sources, the simulator and the diagnosis. Never imports Textual."""

__version__ = "0.1.0"
