"""Files shipped with deppy: the embedded example catalog, the sample request, the default
pipeline. Located beside this module (a plain path: ``importlib.resources`` costs tens of
milliseconds of imports on every CLI run, and these files are always on disk)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent


def data_path(*parts: str) -> Path:
    return DATA.joinpath(*parts)
