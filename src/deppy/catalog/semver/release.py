"""OLM v1's order of bundle versions: version, then release (registry+v1 build metadata).

registry+v1 bundles put a release number in the build metadata (``1.0.0+2``), a semver
violation OLM v1 keeps for compatibility (operator-controller's ``ParseLegacyVersionRelease``):
when the build metadata reads as a release — dot-separated identifiers with semver's
prerelease rules (no leading zeros), 20 characters at most — it is the release, and a bundle
with a release sorts above the same version without one. Otherwise the build metadata is just
build metadata and takes no part in the order.
"""

from __future__ import annotations

import re
from typing import Final, TypeAlias

from deppy.catalog.semver.version import SortKey, Version

MAX_RELEASE_LENGTH: Final = 20
_IDENTIFIER = re.compile(r"0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*", re.ASCII)

ReleaseKey: TypeAlias = tuple[tuple[int, int] | tuple[int, str], ...]
VersionReleaseKey: TypeAlias = tuple[SortKey, int, ReleaseKey]


def release_of(version: Version) -> tuple[int | str, ...]:
    """The release a registry+v1 version carries in its build metadata, or ``()``."""
    build = version.build
    if not build or len(".".join(build)) > MAX_RELEASE_LENGTH:
        return ()
    if not all(_IDENTIFIER.fullmatch(part) for part in build):
        return ()
    return tuple(int(p) if p.isdigit() else p for p in build)


def version_release_key(version: Version) -> VersionReleaseKey:
    """Sort key: higher is newer. Release identifiers compare as prerelease identifiers do
    (numbers below words, a prefix below a longer list); no release is below any release."""
    release = release_of(version)
    ident: ReleaseKey = tuple((0, i) if isinstance(i, int) else (1, i) for i in release)
    return (version.sort_key, 1 if release else 0, ident)


__all__ = ["MAX_RELEASE_LENGTH", "release_of", "version_release_key"]
