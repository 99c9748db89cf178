"""Answers that were wrong or silent when deppy was tried as a new user would, and against
scenarios restated from OLM's own tests (issue 10, items 2–10). Each builds its catalog here."""

from __future__ import annotations

from pathlib import Path

from tests.olm_builders import simple_package, write_catalog
from tests.workflow_helpers import run as cli


def test_capital_letters_in_package_names_are_accepted_everywhere(tmp_path: Path) -> None:
    # OLM's resolver tests name packages "packageA"; catalogs and request files take them
    catalog = write_catalog(tmp_path / "caps", simple_package("packageA", "1.0.0", "1.1.0"))
    code, out, err = cli(
        "resolve", "--catalog", str(catalog), "--require", "packageA", "-o", "json"
    )
    assert code == 0, err
    assert '"version": "1.1.0"' in out
    code, out, err = cli("upgrades", "--catalog", str(catalog), "--installed", "packageA@1.0.0")
    assert code == 0, err
    assert "1.1.0" in out
    from deppy.resolution.request_parsing import parse_require

    assert parse_require("packageA@>=1.0.0").package == "packageA"
