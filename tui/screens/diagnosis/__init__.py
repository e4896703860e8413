"""The diagnosis screen: the screen itself (screen.py), opening it for a workload (open.py), filling its panes
from the engine's events (panes.py), its keys for moving between panes and reading them whole (views.py), copy
and export (report_actions.py), following the workload (follow.py), its command palette entries and tab list
(commands.py) and its words that are not a pane's (text.py).

Nothing is imported here, so one of these modules is read without loading the screen."""
