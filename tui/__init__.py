"""The terminal app and the command line. Only tui.app imports Textual."""
