"""``deppy catalog diff`` on the real community catalog: against itself it is empty, and
against an older release derived from it (tests/older_release.py) it finds exactly what the
derivation changed — the same from the store's rows as from the loaded catalogs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from deppy.catalog.bundle_tree import load_any_catalog
from deppy.catalog.model import Catalog
from deppy.catalog.release_facts import facts_of_catalog
from deppy.catalog.semver import Version
from deppy.store import Store
from deppy.workflows.catalog_diff import CatalogDiff, diff_catalogs, diff_facts, load_side
from tests.conftest import shared_path
from tests.older_release import (
    DEPRECATION_MESSAGE,
    OLD_KUBE,
    OLD_OPENSHIFT,
    RETIRED,
    Derivation,
    derive_older,
)


@dataclass
class Releases:
    directory: Path
    home: Path
    new: Catalog
    old: Catalog
    derivation: Derivation


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Releases:
    home = tmp_path_factory.mktemp("diff-home")
    community = shared_path("catalogs", "community-operators-prod-v4.18")
    older_dir = tmp_path_factory.mktemp("older") / "community-older"
    derivation = derive_older(older_dir)
    new = load_any_catalog(community, name="v418")
    old = load_any_catalog(older_dir, name="older")
    store = Store(home)
    store.add(new)
    store.add(old)
    return Releases(older_dir, home, new, old, derivation)


@pytest.fixture(scope="module")
def stored_diff(releases: Releases) -> CatalogDiff:
    return diff_facts(
        load_side("older", store=releases.home), load_side("v418", store=releases.home)
    )


def test_the_community_catalog_against_itself_is_no_change(releases: Releases) -> None:
    stored = load_side("v418", store=releases.home)
    assert diff_facts(stored, stored).empty
    # the store's rows against the loaded catalog: every bundle's limits compared
    assert diff_facts(stored, facts_of_catalog(releases.new)).empty
    assert diff_facts(facts_of_catalog(releases.new), stored).empty


def test_the_store_and_the_loaded_catalogs_give_the_same_diff(
    releases: Releases, stored_diff: CatalogDiff
) -> None:
    loaded = diff_catalogs(releases.old, releases.new)
    assert orjson.dumps(loaded.as_dict()) == orjson.dumps(stored_diff.as_dict())


def test_packages_channels_and_bundles_added_and_removed(
    releases: Releases, stored_diff: CatalogDiff
) -> None:
    done, new = releases.derivation, releases.new
    assert [p.package for p in stored_diff.packages_added] == done.removed_packages
    assert [p.package for p in stored_diff.packages_removed] == [RETIRED]
    whole = set(done.removed_packages)
    expected = {key for key in new.bundles if key[0] in whole}
    expected |= {(package, bundle) for package, _, bundle in done.removed_heads}
    assert {(b.package, b.bundle) for b in stored_diff.bundles_added} == expected
    assert [(b.package, b.bundle) for b in stored_diff.bundles_removed] == [
        (RETIRED, name) for name in done.retired
    ]
    assert {(c.package, c.channel) for c in stored_diff.channels_added} == {
        key for key in new.channels if key[0] in whole
    }
    assert [(c.package, c.channel) for c in stored_diff.channels_removed] == [(RETIRED, "stable")]


def test_heads_moved_forward_to_the_bundles_left_out(
    stored_diff: CatalogDiff, releases: Releases
) -> None:
    moved = [(m.package, m.channel, m.new) for m in stored_diff.heads_moved]
    assert moved == releases.derivation.removed_heads
    for move in stored_diff.heads_moved:
        assert move.old_version is not None and move.new_version is not None
        assert move.old_version < move.new_version


def test_default_channels_and_deprecations(stored_diff: CatalogDiff, releases: Releases) -> None:
    done = releases.derivation
    assert [(d.package, d.old, d.new) for d in stored_diff.default_channels_changed] == (
        done.defaults
    )
    assert stored_diff.deprecations_added == ()
    assert [(d.package, d.scope, d.name, d.message) for d in stored_diff.deprecations_removed] == [
        (package, "bundle", bundle, DEPRECATION_MESSAGE) for package, bundle in done.deprecated
    ]


def _version(text: str | None) -> Version | None:
    return None if text is None else Version.parse_tolerant(text.strip("\"'"))


def test_platform_limits_changed(stored_diff: CatalogDiff, releases: Releases) -> None:
    done = releases.derivation
    expected = {
        *((p, b, "maxOpenShiftVersion", None, _version(v)) for p, b, v in done.lifted_limits),
        *(
            (p, b, "maxOpenShiftVersion", _version(OLD_OPENSHIFT), _version(v))
            for p, b, v in done.changed_limits
        ),
        *(
            (p, b, "minKubeVersion", _version(OLD_KUBE), _version(v))
            for p, b, v in done.changed_kube
        ),
    }
    found = [(c.package, c.bundle, c.field, c.old, c.new) for c in stored_diff.limits_changed]
    assert len(found) == len(expected) == 15
    assert set(found) == expected


def test_edges_change_only_where_the_derivation_did(
    stored_diff: CatalogDiff, releases: Releases
) -> None:
    done = releases.derivation
    touched = {*done.removed_packages, RETIRED, *(p for p, _, _ in done.removed_heads)}
    assert {e.package for e in (*stored_diff.edges_added, *stored_diff.edges_removed)} <= touched
    heads = {(p, b) for p, _, b in done.removed_heads}
    into_heads = {
        (e.package, e.target) for e in stored_diff.edges_added if (e.package, e.target) in heads
    }
    assert into_heads, "the heads left out came back with their ways in"
    assert all((e.package, e.source) not in heads for e in stored_diff.edges_removed)


def test_every_change_is_counted_and_nothing_else(stored_diff: CatalogDiff) -> None:
    counts = stored_diff.counts()
    assert counts["packages.added"] == 8 and counts["packages.removed"] == 1
    assert counts["channels.heads_moved"] == len(stored_diff.heads_moved) > 0
    assert set(stored_diff.packages()) >= {p.package for p in stored_diff.packages_added}


def test_the_derivation_is_the_same_each_time(
    releases: Releases, tmp_path_factory: pytest.TempPathFactory
) -> None:
    again = tmp_path_factory.mktemp("again") / "community-older"
    assert derive_older(again) == releases.derivation
    files = sorted(p.relative_to(again) for p in again.rglob("*.json"))
    assert files == sorted(
        p.relative_to(releases.directory) for p in releases.directory.rglob("*.json")
    )
    assert all((again / f).read_bytes() == (releases.directory / f).read_bytes() for f in files)
