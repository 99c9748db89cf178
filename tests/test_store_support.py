"""Helpers shared by the store tests (this module has no tests of its own).

``full`` compares catalogs field by field including what equality leaves out (sources,
properties, CSV metadata, version spellings), with the type of every raw value, so a round trip
through the store must give back exactly what the loader gave.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.file_values import FileValue, plain
from deppy.catalog.model import GVK, Catalog
from deppy.catalog.semver import VersionRange

DEPPY = [sys.executable, "-c", "from deppy.cli.main import main; main()"]


# Fields compared with == (their equality covers every part of them): raw catalog JSON/YAML, where
# == already tells a datetime from its text, a list from a tuple and 1 from "1", and tuples of
# values whose equality has no exceptions. At C speed: the community index has ~60 MB of them.
RAW_FIELDS = frozenset(
    {
        "value",
        "csv_metadata",
        "constraints",
        "properties",
        "provided_gvks",
        "required_gvks",
        "labels",
        "required_labels",
        "related_images",
        "skips",
    }
)


def full(value: Any) -> Any:
    """A structure equal for two values only if every field, type and spelling is equal."""
    if isinstance(value, Catalog):
        return (
            value.name,
            value.priority,
            value.path,
            full(value.packages),
            full(value.channels),
            full(value.bundles),
            full(value.deprecations),
            full(value.problems),
            full(value.others),
        )
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(
                (
                    f.name,
                    _raw(getattr(value, f.name))
                    if f.name in RAW_FIELDS
                    else full(getattr(value, f.name)),
                )
                for f in dataclasses.fields(value)
                if f.name != "sort_key"
            ),
        )
    if isinstance(value, FileValue):  # metadata left in its file stands for what it reads
        return full(plain(value))
    if isinstance(value, VersionRange):
        return ("range", str(value), value)
    if isinstance(value, dict):
        return ("dict", tuple((full(k), full(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(full(v) for v in value))
    if isinstance(value, set | frozenset):
        return (type(value).__name__, frozenset(value))
    return (type(value).__name__, value)


def _raw(value: Any) -> Any:
    value = plain(value)
    return (type(value).__name__, value)


def assert_same_catalog(stored: Catalog, loaded: Catalog) -> None:
    assert stored == loaded
    assert list(stored.bundles) == list(loaded.bundles)
    assert list(stored.channels) == list(loaded.channels)
    assert list(stored.packages) == list(loaded.packages)
    for key, bundle in loaded.bundles.items():
        assert full(stored.bundles[key]) == full(bundle), key
    for part in ("name", "priority", "path", "packages", "channels", "deprecations", "problems"):
        assert full(getattr(stored, part)) == full(getattr(loaded, part)), part
    assert full(stored.others) == full(loaded.others)


def assert_same_source(ours: BundleSource, theirs: BundleSource, packages: Sequence[str]) -> None:
    """Every BundleSource answer, in content and order, for the given packages."""
    assert ours.names() == theirs.names()
    for name in [*theirs.names(), "(installed)", "nowhere"]:
        assert ours.rank(name) == theirs.rank(name)
    assert ours.package_names() == theirs.package_names()
    apis: set[GVK] = set()
    labels: set[str] = set()
    for package in [*packages, "no-such-package"]:
        mine, yours = ours.bundles_of(package), theirs.bundles_of(package)
        assert [full(b) for b in mine] == [full(b) for b in yours], package
        assert ours.has_package(package) == theirs.has_package(package)
        assert ours.catalogs_with(package) == theirs.catalogs_with(package)
        for catalog in [*theirs.names(), "nowhere"]:
            assert full(ours.package(catalog, package)) == full(theirs.package(catalog, package))
            channels = theirs.channels(catalog, package)
            assert full(ours.channels(catalog, package)) == full(channels)
            for channel in channels:
                assert ours.channel_deprecated(catalog, package, channel.name) == (
                    theirs.channel_deprecated(catalog, package, channel.name)
                )
        for bundle in yours:
            apis.update(bundle.provided_gvks, bundle.required_gvks)
            labels.update(bundle.labels, bundle.required_labels)
            assert ours.is_deprecated(bundle) == theirs.is_deprecated(bundle)
            for channel in [None, "stable", "alpha", *(c for c in bundle.skips)]:
                assert ours.deprecation_of(bundle, channel) == theirs.deprecation_of(
                    bundle, channel
                )
    for gvk in [*sorted(apis), GVK("no.such", "v1", "Thing")]:
        assert [b.key for b in ours.providers_of(gvk)] == [b.key for b in theirs.providers_of(gvk)]
    for label in [*sorted(labels), "no-such-label"]:
        assert [b.key for b in ours.labelled(label)] == [b.key for b in theirs.labelled(label)]


def deppy(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the deppy command in a child process (as a user would, with its own imports)."""
    return subprocess.run([*DEPPY, *args], env=env, capture_output=True, text=True, timeout=120)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]
