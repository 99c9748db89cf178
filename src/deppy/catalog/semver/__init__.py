"""Semantic versions and version ranges exactly as OLM reads them (blang/semver v4).

``version`` parses and orders versions (``Parse``/``ParseTolerant``), ``intervals`` is the set
algebra ranges are made of, ``ranges`` is ``VersionRange`` and blang's ``ParseRange`` grammar.
"""

from deppy.catalog.semver.intervals import Interval
from deppy.catalog.semver.ranges import VersionRange
from deppy.catalog.semver.version import MIN_VERSION, UINT64_MAX, Version, VersionError

__all__ = ["MIN_VERSION", "UINT64_MAX", "Interval", "Version", "VersionError", "VersionRange"]
