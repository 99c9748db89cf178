"""JSON of a file read at start-up (``deppy solve``'s problem files), without orjson.

Loading orjson imports uuid, datetime, dataclasses, json and enum (~23 ms of a ~15 ms
interpreter start: more than solving a 256-variable problem takes), and the standard library's
``json`` package imports ``re`` and ``enum`` (~8 ms). The C scanner that ``json`` itself parses
with (CPython's ``_json``) loads in a fraction of a millisecond, and reads a problem file as
fast as orjson does.

It must read exactly what orjson reads, so it answers only where the two certainly agree and
returns :data:`UNSURE` everywhere else, for the caller to ask orjson (whose value, or whose
error message, is then the answer): any syntax error or trailing text, NaN and Infinity (orjson
refuses them), integers outside 64 bits (orjson reads them as floats), every float (its own
parser), any ``\\u`` escape (orjson refuses lone surrogates), a file nested deep enough to hit
Python's recursion limit, and files larger than :data:`MAX_SCANNED_CHARS`.
``tests/test_small_json.py`` holds the two equal, value for value and message for message.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing imports re, functools and contextlib: milliseconds of start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

UNSURE = object()
"""What :func:`scanned_json` returns when orjson must read the text."""

MAX_SCANNED_CHARS = 1 << 23
"""Past ~8 MB orjson's import pays for itself on some files. Measured (load ~1): a problem-shaped
file parses at ~23 MB/s with either (building its dicts and lists is the cost), long strings
at ~380 MB/s with either, a list of integers at 178 MB/s with orjson, 108 MB/s with the scanner."""

INT64_MIN = -(2**63)
UINT64_MAX = 2**64 - 1
_WHITESPACE = " \t\n\r"  # JSON's whitespace, as both parsers read it


class _Unsure(Exception):
    """Raised from the scanner's hooks: a value orjson might read differently."""


def _unsure(text: str) -> Any:
    raise _Unsure


def _int(text: str) -> int:
    value = int(text)
    if not INT64_MIN <= value <= UINT64_MAX:
        raise _Unsure
    return value


class _Context:
    """The settings the C scanner reads from a ``json.JSONDecoder``: strict strings (no raw
    control characters, as JSON and orjson say), plain dicts, and the hooks above."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = staticmethod(_unsure)
    parse_int = staticmethod(_int)
    parse_constant = staticmethod(_unsure)


def _make_scanner() -> Callable[[str, int], tuple[Any, int]] | None:
    try:
        from _json import make_scanner  # CPython's; another interpreter leaves it to orjson
    except ImportError:  # pragma: no cover
        return None
    context: Any = _Context()  # typeshed asks for a JSONDecoder: the scanner reads only these
    scanner: Callable[[str, int], tuple[Any, int]] = make_scanner(context)
    return scanner


_SCAN = _make_scanner()


def scanned_json(data: bytes | str) -> Any:
    """The JSON value of ``data``, or :data:`UNSURE` when orjson must read it."""
    if _SCAN is None or len(data) > MAX_SCANNED_CHARS:
        return UNSURE
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
    except UnicodeDecodeError:
        return UNSURE
    if "\\u" in text:
        return UNSURE
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _SCAN(text, start)
    except (_Unsure, StopIteration, ValueError, RecursionError, SystemError):
        # SystemError: the scanner words a syntax error with ``json.decoder.JSONDecodeError``,
        # which it looks up in sys.modules without importing it; when ``json`` was never
        # imported (deppy solve's fast start) it fails with "returned NULL without setting an
        # exception". Any syntax error is orjson's to word (with its line and column).
        return UNSURE
    if text[end:].strip(_WHITESPACE):
        return UNSURE
    return value
