"""Unresolvable requests on ../shared catalogs explain themselves on one screen and offer ways out
that work (tests/explain_corpus.py builds the cases; benchmarks/explanations.py runs them all).

A deterministic sample keeps this quick: every 8th case of about 200, spread over both kinds
(a store read in part with ``--source``, and the whole store).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deppy.catalog.catalog_set import BundleSource
from tests.conftest import shared_path
from tests.explain_corpus import Case, Outcome, cases, fill_store, run_case, sample

EVERY = 8


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus-home")
    fill_store(path, shared_path())
    return path


@pytest.fixture(scope="module")
def corpus(home: Path) -> tuple[BundleSource, list[Case]]:
    from deppy.store import Store

    source = Store(home).source()
    assert source is not None
    return source, cases(source)


@pytest.fixture(scope="module")
def outcomes(home: Path, corpus: tuple[BundleSource, list[Case]]) -> list[Outcome]:
    source, found = corpus
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DEPPY_HOME", str(home))
        return [run_case(case, source) for case in sample(found, EVERY)]


def test_the_corpus_has_both_kinds_of_case(corpus: tuple[BundleSource, list[Case]]) -> None:
    _, found = corpus
    assert len(found) >= 150
    assert any(case.sources for case in found) and any(not case.sources for case in found)


def test_every_explanation_fits_a_screen_with_its_warnings(outcomes: list[Outcome]) -> None:
    assert outcomes and not any(o.resolved for o in outcomes)
    for outcome in outcomes:
        assert not outcome.screen_problems(), (str(outcome.case), outcome.screen)


def test_every_suggestion_shown_resolves_when_applied(outcomes: list[Outcome]) -> None:
    assert sum(len(o.resolving) for o in outcomes) >= len(outcomes) // 2
    for outcome in outcomes:
        assert not outcome.failing, (str(outcome.case), outcome.failing)


def test_nine_in_ten_cases_have_a_way_out_that_resolves(outcomes: list[Outcome]) -> None:
    with_way = [o for o in outcomes if o.resolving]
    assert len(with_way) >= 0.9 * len(outcomes), [str(o.case) for o in outcomes if not o.resolving]


def test_a_catalog_the_sources_leave_out_is_named_when_it_has_what_is_missing(
    home: Path, corpus: tuple[BundleSource, list[Case]], monkeypatch: pytest.MonkeyPatch
) -> None:
    source, _ = corpus
    monkeypatch.setenv("DEPPY_HOME", str(home))
    outcome = run_case(Case("shipwright-operator@0.13.0", ("community",)), source)
    assert (
        "Try: catalog operatorhubio offers tektoncd-operator 0.23.0-2: add `--source operatorhubio`"
        in (outcome.screen)
    ), outcome.screen
    assert outcome.resolving and not outcome.failing
    # warnings only about the catalog read, each line within the screen's width
    warnings = [line for line in outcome.screen if line.startswith("deppy: warning:")]
    assert warnings == [
        "deppy: warning: catalog community: 10 entries kept without their skipRange"
    ]
