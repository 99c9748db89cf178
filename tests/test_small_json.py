"""A small JSON file read without orjson gives orjson's value or orjson's error, always.

``deppy solve`` reads its problem file with CPython's C scanner when it can (start-up time, see
deppy.input_limits.small_json); the answer must be the one orjson gives: the same value (types
included) or, for anything the scanner leaves to orjson, the same error message.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deppy.errors import InputError
from deppy.input_limits import MAX_DEPTH, parse_json
from deppy.input_limits.small_json import MAX_SCANNED_CHARS, UNSURE, scanned_json

EDGES = [
    "",
    "   ",
    "null",
    "[]",
    "{}",
    " [1] \n",
    '\t{"a": [true, false, null]}\r\n',
    "-0",
    "0",
    "01",
    "[01]",
    "-",
    "1.",
    ".5",
    "1e2",
    "-0.0",
    "1E400",
    "1.5e-400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "NaN",
    "[Infinity]",
    "-Infinity",
    "[1,]",
    '{"a":1,}',
    '{"a":1,"b":2,"a":3}',
    '{"a" 1}',
    "{1: 2}",
    "[1] [2]",
    "[1] x",
    '"\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\u00e9"',
    '"\\x41"',
    '"tab\there"',
    '"nul\x00"',
    '"del\x7f"',
    '"\u2028 é 😀"',
    "\ufeff[1]",
    "[1]\x00",
    "'a'",
    "true false",
    "tru",
    '["a", "b"',
    '{"a": "b"',
    '"unterminated',
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "[" * 5000 + "]" * 5000,
    "[" * 5000,
    '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
    '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH,
    '[{"a": [' * 60 + "]}]" * 60,
    "[" + "1," * 5000 + '{"a":' * 99 + '{"b": []}' + "}" * 99 + "]",
    '[{"id":"a","constraints":[{"type":"atmost","n":1,"ids":["b"]}]}]',
]


def outcome(data: bytes | str, *, small: bool) -> tuple[str, object]:
    """The value (with its types spelled out) or the error message parse_json gives."""
    try:
        return ("value", typed(parse_json(data, "problem.json", small=small)))
    except InputError as error:
        return ("error", str(error))


def typed(value: object) -> object:
    """``1 == 1.0 == True`` in Python: compare values with their types."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


@pytest.mark.parametrize("text", EDGES)
def test_the_scanner_agrees_with_orjson_on_the_edges(text: str) -> None:
    for data in (text, text.encode("utf-8", "surrogatepass")):
        assert outcome(data, small=True) == outcome(data, small=False), repr(text)


def test_the_scanner_answers_a_plain_problem_itself() -> None:
    text = '[{"id": "a", "constraints": [{"type": "atmost", "n": 1, "ids": ["b", "c"]}]}]'
    assert scanned_json(text) == orjson.loads(text)
    assert scanned_json(text.encode()) == orjson.loads(text)


@pytest.mark.parametrize(
    "text",
    ["NaN", "1.5", "18446744073709551616", '"\\u00e9"', "[1] x", "\ufeff[1]", "[" * 5000],
)
def test_what_orjson_might_read_otherwise_is_left_to_it(text: str) -> None:
    assert scanned_json(text) is UNSURE


def test_a_large_file_is_left_to_orjson() -> None:
    text = json.dumps(["x" * 1000] * (MAX_SCANNED_CHARS // 1000))
    assert scanned_json(text) is UNSURE


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.booleans())
def test_any_json_reads_as_orjson_reads_it(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert outcome(text.encode(), small=True) == outcome(text.encode(), small=False)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.integers(min_value=0), st.sampled_from(list(' ,:[]{}"\\\x00-0e.1nt')))
def test_broken_json_fails_as_orjson_fails(value: object, at: int, char: str) -> None:
    text = json.dumps(value)
    position = at % (len(text) + 1)
    for broken in (text[:position] + char + text[position:], text[:position]):
        data = broken.encode()
        assert outcome(data, small=True) == outcome(data, small=False), repr(broken)


BROKEN_PROBLEMS = {
    "unterminated string": ('{"variables": [{"id": "a', "line 1 column 25"),
    "missing colon": ('{"variables" []}', "expected ':' after key: line 1 column 14"),
    "missing comma": ('{"variables": [{"id": "a"} {"id": "b"}]}', "line 1 column 28"),
    "raw control character": ('{"variables": [{"id": "a\x01"}]}', "control character"),
}


@pytest.mark.parametrize("name", sorted(BROKEN_PROBLEMS))
def test_broken_json_at_start_up_is_one_error_line(name: str, tmp_path: Path) -> None:
    """In a fresh process (``json`` never imported, as ``deppy solve`` starts) the C scanner
    words a syntax error with a module that is not there: it must still be orjson's error,
    naming the file and the position, never a SystemError traceback."""
    text, position = BROKEN_PROBLEMS[name]
    problem = tmp_path / "problem.json"
    problem.write_text(text)
    run = subprocess.run(
        [sys.executable, "-c", "from deppy.cli.main import main; main()", "solve", str(problem)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.startswith(f"deppy: error: {problem}: invalid JSON: "), run.stderr
    assert position in run.stderr
    assert "Traceback" not in run.stderr
    assert len(run.stderr.splitlines()) == 1
