"""Errors a user can cause, shared by every layer.

Every front door (CLI, HTTP) turns a :class:`DeppyError` into one line and exit code 2; anything
else is a bug. Keeping the type at the bottom of the import graph lets the solver, the loaders and
the OLM domain raise the same family without importing each other.

A message may quote what the user gave; :func:`excerpt` keeps such a quote short and escaped, and
every message is made :func:`printable` when it is built: one line, no control characters that a
terminal would obey, at most :data:`MAX_MESSAGE` characters whatever the input held.
"""

from __future__ import annotations

import reprlib

TYPE_CHECKING = False  # typing, json and collections cost `deppy solve` start-up (its test)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Final

MAX_MESSAGE: Final = 2000
"""The longest message printed for one problem (a quote of bad input is far shorter still)."""

MAX_EXCERPT: Final = 80
"""The longest quote of bad input in a message."""

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = MAX_EXCERPT
_REPR.maxother = MAX_EXCERPT
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 4
_REPR.maxlong = 40


def excerpt(value: object, limit: int = MAX_EXCERPT) -> str:
    """A short, escaped quote of a value from the input, as Python's repr writes it.

    Bounded work whatever the value (a 10 MB string, a million-node tree): only what is shown is
    looked at. Control characters and lone surrogates come out as escapes.
    """
    text = _REPR.repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def json_type(value: object) -> str:
    """How a message names the JSON type found where another was expected: ``a list``."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    from collections.abc import Mapping

    if isinstance(value, Mapping):
        return "a mapping"
    return "null" if value is None else f"a {type(value).__name__}"


def quoted(text: str, limit: int = MAX_EXCERPT) -> str:
    """A string from the input in double quotes, JSON-escaped, cut short when it is long."""
    import json

    if len(text) <= limit:
        return json.dumps(text, ensure_ascii=False)
    return json.dumps(text[: limit - 1], ensure_ascii=False)[:-1] + '…"'


def printable(text: str, limit: int = MAX_MESSAGE) -> str:
    """One line a terminal shows as it is: control characters (newlines too) and lone
    surrogates escaped, at most about ``limit`` characters (the middle of a longer one cut)."""
    if len(text) > limit:  # keep both ends: where it is, and what to do
        half = limit // 2
        text = f"{text[:half]} …({len(text) - 2 * half} characters)… {text[-half:]}"
    if text.isprintable():
        return text
    import unicodedata

    out = []
    for char in text:
        if char.isprintable() or char == " ":
            out.append(char)
        elif unicodedata.category(char) == "Cs":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(repr(char)[1:-1] if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "".join(out)


class DeppyError(Exception):
    """A problem in the user's input: printed as one line, never with a traceback (exit 2)."""

    def __str__(self) -> str:
        return printable(super().__str__())


class InputError(DeppyError):
    """Bad input at a known place: ``where`` names the file/object/field, ``fix`` what to do."""

    def __init__(self, where: str, what: str, fix: str | None = None) -> None:
        self.where = where
        self.what = what
        self.fix = fix
        message = f"{where}: {what}" if where else what
        if fix:
            message = f"{message}; {fix}"
        super().__init__(message)


def unusable_path(error: OSError) -> InputError | None:
    """The user's error an OSError stands for when it says a path cannot name a file at all —
    a name in it longer than the file system allows (255 bytes: ENAMETOOLONG), or a loop of
    symbolic links (ELOOP) — or that this user may not use it (EACCES: :func:`denied`),
    wherever deep in a command it was opened or looked at; None for any other OSError (a bug or
    the machine's, not the input's).

    The CLI's group turns such an error into its one line and exit 2: one rule for every path
    a user gives (``--catalog``, ``validate``, ``--cluster``, a request file's
    ``spec.catalogs[].path``…), not a check per command. (The service takes no paths in its
    requests; the controller reports an OSError of a Catalog's path as ``LoadFailed``.)"""
    import errno

    if error.errno not in (errno.ENAMETOOLONG, errno.ELOOP, errno.EACCES):
        return None
    if error.filename is None:
        return None
    name = error.filename
    where = name.decode("utf-8", "backslashreplace") if isinstance(name, bytes) else str(name)
    if error.errno == errno.EACCES:
        return denied(where)
    if error.errno == errno.ENAMETOOLONG:
        return InputError(
            where,
            "the path is too long (a name in a path is at most 255 bytes, a path 4,096)",
            "give a shorter path",
        )
    return InputError(where, "too many levels of symbolic links", "give a path that resolves")


def denied(where: str) -> InputError:
    """A path this process may not read, write or look into (EACCES): the user's to fix, never a
    traceback. An image run as another uid than the one its home belongs to (OpenShift runs
    each pod as an arbitrary uid in group 0) meets it first at the store under ``$HOME``."""
    import os

    return InputError(
        where,
        f"permission denied to this user (uid {os.getuid()}, gid {os.getgid()})",
        "give it access, or use another path (DEPPY_HOME for deppy's store and cache)",
    )


def special_file(mode: int) -> str | None:
    """What a path that is neither a regular file nor a directory is (``os.stat``'s
    ``st_mode``), as a message names it: reading it as a file would block (a FIFO waits for a
    writer) or never end (``/dev/zero``); None for a file or a directory."""
    import stat

    kinds = (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), None)


def not_a_file(mode: int, wanted: str = "a regular file") -> str:
    """Why a path is not read as ``wanted`` (``os.stat``'s ``st_mode`` of what it names):
    "is a directory, not a regular file", "is a FIFO (named pipe), not a regular file"…"""
    import stat

    if stat.S_ISDIR(mode):
        kind = "a directory"
    elif stat.S_ISREG(mode):
        kind = "a file"
    else:
        kind = special_file(mode) or "no file or directory"
    return f"is {kind}, not {wanted}"


def printable_path(path: str) -> str:
    """A path as a message, a record or a terminal can carry it: a name that is not UTF-8 (read
    from a directory, the bytes kept as lone surrogates) with those bytes written as
    ``\\xff``, and control characters (a newline, an escape sequence) escaped the same way."""
    if path.isprintable():
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name leaves (from a JSON escape)
        raw = path.encode("utf-8", "backslashreplace")
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice nearest to a misspelt ``name`` (``openshiftVerison`` → ``openshiftVersion``),
    or None when none is near enough to be a likely typo."""
    import difflib  # deferred: only a mistake pays for it

    choices = list(choices)
    by_lower = {c.lower(): c for c in choices}
    if name.lower() in by_lower:
        return by_lower[name.lower()]
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[found[0]] if found else None


def unknown_field(
    where: str, key: str, allowed: Sequence[str], elsewhere: Mapping[str, str] | None = None
) -> InputError:
    """The error for a field that does not belong at ``where``: names the path, the closest
    valid name, or — for a field that belongs at another level (``elsewhere`` maps such names
    to their place) — where it goes."""
    if not key.isprintable() or len(key) > MAX_EXCERPT:
        key = excerpt(key)  # input reaches a terminal: escaped, and short
    path = f"{where} {key}" if where.endswith(":") else f"{where}.{key}" if where else key
    if elsewhere and key in elsewhere:
        return InputError(path, "misplaced field", f"it belongs in {elsewhere[key]}")
    near = closest(key, allowed)
    fields = f"fields here: {', '.join(allowed)}" if allowed else "no fields are allowed here"
    fix = f"did you mean {near!r}? ({fields})" if near else fields
    return InputError(path, "unknown field", fix)


def only_fields(
    body: Mapping[str, object],
    allowed: Sequence[str],
    where: str,
    belongs: Mapping[str, str] | None = None,
) -> None:
    """Reject the first field of ``body`` (in file order) that ``allowed`` does not name: with
    the closest valid name, or where it belongs when ``belongs`` places it at another level."""
    for key in body:
        if key not in allowed:
            misplaced = {k: v for k, v in (belongs or {}).items() if k not in allowed}
            raise unknown_field(where, str(key), allowed, misplaced)


def check_type(data: Mapping[str, object], where: str, api_version: str, kind: str) -> None:
    """A document's ``apiVersion`` and ``kind``, when present, are the ones this file takes."""
    for key, expected in (("apiVersion", api_version), ("kind", kind)):
        if key in data and data[key] != expected:
            raise InputError(
                f"{where}: {key}" if where else key,
                f"expected {expected!r}, got {data[key]!r}",
                f"the file starts with 'apiVersion: {api_version}' and 'kind: {kind}'",
            )
