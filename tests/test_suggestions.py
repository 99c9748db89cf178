"""Suggestions are data, and deppy shows only those it has seen resolve.

Each suggestion carries the change to the request (kind + fields) beside its words; applying
the change and resolving again must succeed, with the pipeline the user ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.model import Catalog
from deppy.explain import explanation_as_dict
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.resolution.resolver import resolve, resolve_in_pipeline
from tests.conftest import shared_path
from tests.explain_corpus import ADVICE, apply_change
from tests.olm_builders import (
    bundle,
    channel,
    entry,
    make_catalog,
    max_ocp,
    needs_package,
    package,
    run,
)
from tests.test_pipeline_nodes import with_nudges


def assert_every_suggestion_resolves(catalogs: CatalogSet, resolution: Resolution) -> int:
    assert resolution.explanation is not None
    data = explanation_as_dict(resolution.explanation)
    tried = 0
    for shown in data["suggestions"]:
        changed = apply_change(resolution.request, shown["change"])
        if changed is None:
            assert shown["change"]["kind"] in ADVICE
            continue
        assert changed != resolution.request, shown
        assert resolve(catalogs, changed).resolved, shown["text"]
        tried += 1
    return tried


@pytest.fixture(scope="module")
def community() -> CatalogSet:
    from deppy.catalog.fbc import load_catalog

    path = shared_path("catalogs", "community-operators-prod-v4.18")
    return CatalogSet([load_catalog(path, name="community")])


@pytest.mark.parametrize(
    "require",
    [
        ["eclipse-che@>=7.42.0"],
        ["kuadrant-operator@0.7.1"],
        ["node-healthcheck-operator@0.1.1"],
        ["etcd@>=5.0.0"],
        ["etcd,channel=nope"],
    ],
)
def test_every_suggestion_on_a_real_catalog_resolves_when_applied(
    community: CatalogSet, require: list[str]
) -> None:
    resolution = run(community, require)
    assert not resolution.resolved
    assert assert_every_suggestion_resolves(community, resolution) >= 1


def test_a_missing_channel_suggests_the_channels_that_resolve(community: CatalogSet) -> None:
    resolution = run(community, ["etcd,channel=nope"])
    assert resolution.explanation is not None
    changes = [s.change for s in resolution.explanation.suggestions]
    switched = [c["spec"] for c in changes if c["kind"] == "replace-requirement"]
    assert "etcd,channel=singlenamespace-alpha" in switched
    for spec in switched:  # what a user pastes works
        assert resolve(community, ResolutionRequest(required=(parse_require(spec),))).resolved


def test_suggestions_that_would_not_resolve_are_not_shown(tmp_path: Path) -> None:
    """Dropping one of two clashing requirements resolves; a cluster version bundles of a
    second package refuse too does not."""
    catalog = make_catalog(
        tmp_path,
        [
            package("app"),
            channel("app", "stable", "app.v1.0.0"),
            bundle("app", "1.0.0", max_ocp("4.12")),
            package("other"),
            channel("other", "stable", "other.v1.0.0"),
            bundle("other", "1.0.0", needs_package("gone", ">=1.0.0")),
        ],
        name="main",
    )
    resolution = run(catalog, ["app", "other"], ocp="4.18")
    assert resolution.explanation is not None
    kinds = [s.change["kind"] for s in resolution.explanation.suggestions]
    texts = [s.text for s in resolution.explanation.suggestions]
    # app would install on 4.12, but 'other' still cannot: that change alone does not resolve
    assert "set-cluster" not in kinds, texts
    assert_every_suggestion_resolves(CatalogSet([catalog]), resolution)


def app_whose_newest_needs_a_missing_package(tmp_path: Path) -> Catalog:
    return make_catalog(
        tmp_path,
        [
            package("app"),
            channel("app", "stable", "app.v1.0.0", entry("app.v2.0.0", "app.v1.0.0")),
            bundle("app", "1.0.0"),
            bundle("app", "2.0.0", needs_package("dep", ">=1.0.0")),
        ],
        name="main",
    )


def test_suggestions_are_checked_with_the_pipeline_the_user_ran(tmp_path: Path) -> None:
    """The default pipeline would suggest app 1.0.0; the user's pipeline prohibits it."""
    catalog = app_whose_newest_needs_a_missing_package(tmp_path)
    catalogs = CatalogSet([catalog])
    request = ResolutionRequest(required=(parse_require("app@2.0.0"),))
    default = resolve(catalogs, request)
    assert default.explanation is not None
    assert default.explanation.suggestions[0].text.startswith("require 'app@1.0.0' instead")
    nudged = with_nudges(tmp_path, {"prohibit": {"package": "app", "versions": "1.0.0"}})
    mine = resolve_in_pipeline(catalogs, request, pipeline=nudged)
    assert mine.explanation is not None
    assert not any("app@1.0.0" in s.text for s in mine.explanation.suggestions), [
        s.text for s in mine.explanation.suggestions
    ]


def test_suggestions_in_json_carry_their_change(tmp_path: Path) -> None:
    catalog = app_whose_newest_needs_a_missing_package(tmp_path)
    resolution = run(catalog, ["app@2.0.0"])
    assert resolution.explanation is not None
    first = explanation_as_dict(resolution.explanation)["suggestions"][0]
    assert first["change"] == {
        "kind": "replace-requirement",
        "index": 0,
        "spec": "app@1.0.0",
        "requirement": {"name": "app", "versionRange": "1.0.0"},
    }
    assert first["text"] == (
        "require 'app@1.0.0' instead of 'app 2.0.0' — "
        "app 1.0.0 resolves (channel stable, catalog main)"
    )
