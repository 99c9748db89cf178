"""``make image``'s builder where it needs no root (image/provenance.py, image/progress.py): the
source label published without credentials, and a build that says what it is doing.

The image itself is built and run in tests/test_image.py (root, mmdebstrap, bwrap).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from image import progress, provenance

TOKEN = "glpat-SECRET0123456789"


def _checkout(path: Path, origin: str | None) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if origin is not None:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", origin], check=True)
    return path


@pytest.mark.parametrize(
    ("origin", "label"),
    [
        # every GitLab CI job's clone, and a personal token in a GitHub URL
        (f"https://gitlab-ci-token:{TOKEN}@gitlab.example.com/group/deppy.git",
         "https://gitlab.example.com/group/deppy.git"),
        (f"https://user:{TOKEN}@github.com/acme/deppy", "https://github.com/acme/deppy"),
        (f"https://{TOKEN}@github.com/acme/deppy.git", "https://github.com/acme/deppy.git"),
        # a key in the query, a fragment, a port; the scheme and host lowercased as URLs compare
        (f"HTTPS://git.example.com:8443/deppy.git?private_token={TOKEN}#main",
         "https://git.example.com:8443/deppy.git"),
        (f"ssh://git:{TOKEN}@[2001:db8::1]:2222/srv/deppy.git", "ssh://[2001:db8::1]:2222/srv/deppy.git"),
        # git's scp-like form: the host and path, by ssh
        ("git@github.com:acme/deppy.git", "ssh://github.com/acme/deppy.git"),
        # no URL: a clone of a local directory names the build machine's path
        ("/srv/git/deppy.git", None),
        ("../deppy", None),
        (f"file:///home/{TOKEN}/deppy", None),
        ("https://", None),
        ("https://host:notaport/x", None),
    ],
)  # fmt: skip
def test_the_source_label_of_a_checkout_carries_no_credentials(
    tmp_path: Path, origin: str, label: str | None
) -> None:
    checkout = _checkout(tmp_path / "checkout", origin)
    found = provenance.origin_url(checkout)
    assert found == origin  # git gives the token back as it was written
    published = provenance.source_label(None, found)
    assert published == label
    assert TOKEN not in str(published)


def test_a_checkout_without_origin_has_no_source_label(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path / "checkout", None)
    assert provenance.origin_url(checkout) is None
    assert provenance.source_label(None, None) is None


def test_a_clone_of_a_local_directory_has_no_source_label(tmp_path: Path) -> None:
    first = _checkout(tmp_path / "first", None)
    who = {
        f"GIT_{role}_{part}": "t@t"
        for role in ("AUTHOR", "COMMITTER")
        for part in ("NAME", "EMAIL")
    }
    subprocess.run(["git", "-C", str(first), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, env=who)  # fmt: skip
    subprocess.run(["git", "clone", "-q", str(first), str(tmp_path / "clone")], check=True)
    origin = provenance.origin_url(tmp_path / "clone")
    assert origin == str(first)
    assert provenance.source_label(None, origin) is None


def test_deppy_image_source_is_published_without_credentials_or_refused() -> None:
    configured = f"https://ci:{TOKEN}@gitlab.example.com/deppy.git?ref=main"
    assert provenance.source_label(configured, "git@other:x") == (
        "https://gitlab.example.com/deppy.git"
    )
    with pytest.raises(SystemExit, match="DEPPY_IMAGE_SOURCE is not a URL"):
        provenance.source_label("/home/me/deppy", None)


def test_a_step_says_when_it_starts_while_it_runs_and_how_long_it_took(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert progress.step("mmdebstrap", lambda: time.sleep(0.35) or 7, every=0.1) == 7
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "image: mmdebstrap …"
    assert 2 <= sum("mmdebstrap: still running, " in line for line in lines[1:-1]) <= 4
    assert lines[-1].startswith("image: mmdebstrap: ") and lines[-1].endswith(" s")


def test_a_failing_step_is_named_with_its_time(capsys: pytest.CaptureFixture[str]) -> None:
    def fail() -> None:
        sys.exit("mmdebstrap failed")

    with pytest.raises(SystemExit, match=r"step 'base' failed after [0-9.]+ s: mmdebstrap failed"):
        progress.step("base", fail)
    assert capsys.readouterr().err == "image: base …\n"
