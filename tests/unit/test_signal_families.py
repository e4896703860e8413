"""Every signal family's real cluster strings, from the registry: what each must (and must not) give.

The examples live beside each family's patterns (core/diagnosis/signals/<family>.py); this test runs them all
through `classify_message` and checks the registry against the rule table.
"""

from __future__ import annotations

import pytest

from core.diagnosis.rules import RULES, UNRESOLVED_KILL_KINDS
from core.diagnosis.signals import SignalKind, classify_message, signal_rank
from core.diagnosis.signals.family import Example, Family
from core.diagnosis.signals.registry import FAMILIES, row_kinds

CASES = [(family, example) for family in FAMILIES for example in family.examples]


def _id(case: tuple[Family, Example]) -> str:
    family, example = case
    return f"{family.name}:{example.reason}:{(example.message or '')[:40]}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_example_gives_its_strongest_signal(case: tuple[Family, Example]) -> None:
    _, example = case
    found = classify_message(example.reason, example.message)
    if example.kind is None:
        assert found == [], found
        return
    assert found, f"no signal for {example.reason!r} {example.message!r}"
    strongest = found[0]
    assert strongest.kind is example.kind, found
    for name, value in example.fields:
        assert getattr(strongest, name) == value, (name, strongest)
    assert len({item.kind for item in found}) == len(found), "one signal per kind"


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_every_family_recognises_its_kinds_and_a_look_alike(family: Family) -> None:
    positives = {e.kind for e in family.examples if e.kind is not None}
    # Each kind the family can give is shown by at least one real string (all its kinds for the families
    # that match text; init only converts what others found).
    assert family.kinds & positives, family.name
    if family.match is not None:
        missing = family.kinds - {k for f in FAMILIES for e in f.examples for k in [e.kind]}
        assert not missing, f"{family.name}: no example gives {sorted(missing)}"
    assert len(family.examples) >= 5, family.name
    if family.match is not None:  # and a string that reads alike but is not this family's
        assert any(e.kind is None or e.kind not in family.kinds for e in family.examples), family.name
    assert set(family.rows) <= family.kinds, "a family feeds rule rows only with its own kinds"


def test_rule_rows_read_their_kinds_from_the_registry() -> None:
    names = {rule.name for rule in RULES}
    fed = {row for family in FAMILIES for row in family.rows.values()}
    assert fed == names, "every row is fed by some family, and every family row exists"
    for rule in RULES:
        assert rule.kinds == row_kinds(rule.name) and rule.kinds


def test_every_kind_belongs_to_one_family_and_has_a_strength() -> None:
    owners: dict[SignalKind, list[str]] = {}
    for family in FAMILIES:
        for kind in family.kinds:
            owners.setdefault(kind, []).append(family.name)
    assert set(owners) == set(SignalKind), set(SignalKind) - set(owners)
    assert all(len(names) == 1 for names in owners.values()), owners
    ranks = [signal_rank(kind) for kind in SignalKind]
    assert len(set(ranks)) == len(ranks), "every kind has its own place in the strength order"
    # A kind that decides nothing is either an unresolved kill or only corroborates.
    deciding = {kind for rule in RULES for kind in rule.kinds}
    assert UNRESOLVED_KILL_KINDS.isdisjoint(deciding)


@pytest.mark.parametrize(("reason", "message"), [(None, None), (None, ""), ("SuccessfulCreate", "Created pod: x-0")])
def test_nothing_to_match_gives_nothing(reason: str | None, message: str | None) -> None:
    assert classify_message(reason, message) == []
