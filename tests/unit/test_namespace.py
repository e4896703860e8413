"""Namespace resolution: workload, project, events, then the runai-<project> assumption, in that order."""

from __future__ import annotations

from core.sources.namespace import NamespaceChoice, is_namespace_name, resolve_namespace


def test_workload_namespace_wins() -> None:
    choice = resolve_namespace("team-a", "proj-ns", ["ev-ns"], "nlp")
    assert choice == NamespaceChoice("team-a", "workload.namespace", False)


def test_project_namespace_when_the_workload_has_none() -> None:
    choice = resolve_namespace(None, "proj-ns", ["ev-ns"], "nlp")
    assert (choice.namespace, choice.source, choice.assumed) == ("proj-ns", "project status.namespace", False)


def test_event_namespace_when_workload_and_project_have_none() -> None:
    choice = resolve_namespace("", None, [None, "ev-ns", "ev-ns"], "nlp")
    assert choice.namespace == "ev-ns"
    assert (choice.source, choice.assumed) == ("event involvedObject.namespace", False)


def test_disagreeing_events_pick_the_most_frequent_and_note_the_rest() -> None:
    choice = resolve_namespace(None, None, ["b", "a", "a", "c"], "nlp")
    assert choice.namespace == "a"
    assert choice.notes == ("events also named b, c",)


def test_fallback_is_an_assumption_and_says_so() -> None:
    choice = resolve_namespace(None, None, [], "nlp")
    assert choice.namespace == "runai-nlp"
    assert choice.assumed is True
    assert choice.source.startswith("assumed:")
    assert "default namespace" in choice.source


def test_invalid_values_are_skipped_with_a_note_never_used() -> None:
    choice = resolve_namespace("../secrets", "Not_Valid", ["x" * 64], "nlp")
    assert choice.namespace == "runai-nlp" and choice.assumed
    assert len(choice.notes) == 3
    assert "workload.namespace" in choice.notes[0] and "not a valid namespace name" in choice.notes[0]


def test_nothing_known_gives_no_namespace_rather_than_a_guess() -> None:
    choice = resolve_namespace(None, None, [], None)
    assert choice.namespace is None and not choice.assumed
    assert choice.source.startswith("unknown")


def test_project_name_that_cannot_form_a_namespace_is_not_guessed() -> None:
    choice = resolve_namespace(None, None, [], "Bad Project!")
    assert choice.namespace is None
    assert any("not a valid namespace name" in note for note in choice.notes)


def test_namespace_name_rules() -> None:
    assert is_namespace_name("runai-nlp")
    assert is_namespace_name("a" * 63)
    assert not is_namespace_name("a" * 64)
    assert not is_namespace_name("-lead")
    assert not is_namespace_name("UPPER")
    assert not is_namespace_name("with/slash")
    assert not is_namespace_name("")
