"""What the image says about where it came from, and nothing more: the source label's URL.

``org.opencontainers.image.source`` is read by anyone who can pull the image. Its value comes
from the build machine (``$DEPPY_IMAGE_SOURCE`` or git's ``origin``), where a CI job's clone URL
carries a token (``https://gitlab-ci-token:TOKEN@host/group/repo.git``) and a mirror's URL may
carry a query with a key. So only a URL's scheme, host, port and path go in; a value that is no
URL (a clone of a local directory, whose origin is a path on the build machine) gives no label.
Standard library only: the unit tests import it without the image's tools.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# Schemes a source can be fetched by; anything else (file:, a bare path) names the build machine.
_SCHEMES = ("https", "http", "ssh", "git", "git+ssh", "ssh+git")
# git's scp-like form: [user@]host:path (no "//"; a host, not a one-letter Windows drive)
_SCP = re.compile(r"(?:[^@/:]+@)?(?P<host>[A-Za-z0-9.-]{2,}):(?P<path>[^/].*|/.+)")


def public_url(value: str) -> str | None:
    """``value`` as a URL fit to publish: scheme, host, port and path; user name, password,
    query and fragment dropped. None when ``value`` is not such a URL (a local path, ``file:``,
    empty); git's ``user@host:path`` form becomes ``ssh://host/path``."""
    text = value.strip()
    if not text or any(c.isspace() or ord(c) < 32 for c in text):
        return None
    if "://" not in text:
        scp = _SCP.fullmatch(text)
        if scp is None:
            return None
        return f"ssh://{scp['host']}/{scp['path'].lstrip('/')}"
    try:
        parts = urlsplit(text)
        port = parts.port  # a port that is no number raises
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme.lower() not in _SCHEMES or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, "", ""))


def source_label(configured: str | None, origin: str | None) -> str | None:
    """The source label's value: ``configured`` ($DEPPY_IMAGE_SOURCE) when set, else git's
    origin; each made public (:func:`public_url`); None for no label. A configured value that
    is no URL is a mistake worth stopping for (SystemExit), an origin that is none is not."""
    if configured:
        found = public_url(configured)
        if found is None:
            raise SystemExit(
                "image: DEPPY_IMAGE_SOURCE is not a URL (https://HOST/PATH); set it to the "
                "repository's web address, or unset it"
            )
        return found
    return public_url(origin) if origin else None


def origin_url(repository: Path) -> str | None:
    """git's ``origin`` of the checkout at ``repository`` as git gives it (credentials and
    all), or None when it has none."""
    found = subprocess.run(
        ["git", "remote", "get-url", "origin"], cwd=repository, capture_output=True, text=True
    )
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None
