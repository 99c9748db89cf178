"""Trees of older-format bundle directories used as catalogs (``--catalog``, ``catalog add``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from deppy.catalog.bundle_tree import bundle_dirs_in, load_any_catalog, load_bundle_tree
from deppy.catalog.catalog_set import CatalogSet
from deppy.cli.main import cli, register_commands
from deppy.errors import InputError
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.resolution.resolver import resolve
from tests.conftest import shared_path


def test_every_full_bundle_directory_becomes_a_catalog_entry() -> None:
    root = shared_path("bundles", "full")
    catalog = load_bundle_tree(root, name="bundles")
    assert len(bundle_dirs_in(root)) == 25
    assert len(catalog.bundles) == 25
    for package in catalog.packages.values():
        assert package.default_channel is not None
        assert (package.name, package.default_channel) in catalog.channels
    for bundle in catalog.bundles.values():
        assert bundle.catalog == "bundles"
        assert any(
            bundle.name in {e.name for e in c.entries} for c in catalog.channels_of(bundle.package)
        )


def test_metadata_only_tree_loads_what_it_can() -> None:
    catalog = load_bundle_tree(shared_path("bundles", "metadata-only"), name="meta")
    assert len(catalog.bundles) > 300
    assert catalog.problems, "missing CSVs are reported, never hidden"


def test_a_single_bundle_directory_is_a_catalog(tmp_path: Path) -> None:
    bundle = shared_path(
        "bundles", "full", "community-operators-prod", "operators", "kuadrant-operator", "0.11.1"
    )
    catalog = load_any_catalog(bundle, name="one")
    assert [b.name for b in catalog.bundles.values()] == ["kuadrant-operator.v0.11.1"]


def test_bundle_tree_and_fbc_resolve_together() -> None:
    bundles = load_bundle_tree(
        shared_path("bundles", "full", "community-operators-prod"), name="bundles"
    )
    community = load_any_catalog(
        shared_path("catalogs", "community-operators-prod-v4.18"), name="community", priority=10
    )
    request = ResolutionRequest(
        required=(parse_require("kuadrant-operator@0.11.1,catalog=bundles"),)
    )
    resolution = resolve(CatalogSet([bundles, community]), request)
    assert resolution.selection is not None
    placed = {(s.package, s.catalog) for s in resolution.selection}
    assert ("kuadrant-operator", "bundles") in placed
    assert ("dns-operator", "community") in placed


def test_empty_tree_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "x" / "metadata").mkdir(parents=True)
    with pytest.raises(InputError):
        load_bundle_tree(tmp_path)


def test_cli_accepts_a_bundle_tree_as_catalog() -> None:
    register_commands()
    root = shared_path("bundles", "full", "community-operators-prod")
    result = CliRunner().invoke(
        cli,
        ["resolve", "--catalog", f"{root}=bundles", "--require", "kuadrant-operator", "-o", "json"],
    )
    assert result.exit_code == 1, "its dependencies live in no bundle directory here"
    assert "authorino-operator" in result.stdout
