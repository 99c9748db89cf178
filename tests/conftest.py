"""Shared fixtures: the real data in ../shared, which tests use instead of mocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared")).resolve()


def shared_path(*parts: str) -> Path:
    """A path under ../shared; fails the test loudly when the data is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(
            f"test data {path} is missing: ../shared must sit beside the checkout "
            "(or set DEPPY_SHARED)",
            pytrace=False,
        )
    return path
