"""What the app offers for each action a report names: where the command line adds a flag or gives an id, the app
says what to press. The report holds its sentences with actions as data (`Report.actions`); a sentence without
one is shown as it is. Copies and exports keep the report's words: a ticket is read by someone who will run the
command, not press the key.
"""

from __future__ import annotations

from core.models.advice import Action, Words, worded
from core.models.report import Report

IN_THE_APP: Words = {
    Action.GIVE_WORKLOAD_ID: {"": "choose that run in the picker (esc, then enter on its row)"},
    Action.USE_ACTIVE: {
        "": "for a current crash loop or start failure, choose its Running or Pending row in the picker "
        "(a lists the ones that need attention)"
    },
    Action.DROP_ACTIVE: {"": "choose its last failed run in the picker"},
    Action.WIDEN_LOOKBACK: {"": "widen the lookback (press b)", "the window": "press b to widen the lookback"},
}


def for_the_app(report: Report, text: str) -> str:
    """`text`, one of `report`'s sentences, said in the app's terms when it offers an action."""
    for sentence in report.actions:
        if sentence.text == text:
            return worded(sentence.said().parts, IN_THE_APP)
    return text
