"""One YAML document, one answer: merge keys and plain ``<<`` read the same on both paths.

deppy reads a plain stream straight from libyaml's events and leaves any stream with an anchor,
an alias, a tag or a merge key to PyYAML's loader (deppy.input_limits.yaml_events). An anchor
elsewhere in the file must not change what the rest of it means. Merge keys merge (PyYAML's safe
loader and the Go YAML operator-registry reads catalogs with both do); a plain ``<<`` that is
not a mapping's key is the text ``<<`` (as Go reads it).
"""

from __future__ import annotations

import pytest

from deppy.input_limits import yaml_documents, yaml_first_document, yaml_value

UNRELATED_ANCHOR = "unrelated: &unrelated 0\n"

DOCUMENTS = {
    "a plain << value": ("a: <<\n", {"a": "<<"}),
    "<< in a list": ("a: [<<, x]\n", {"a": ["<<", "x"]}),
    "<< in a block list": ("a:\n- <<\n- y\n", {"a": ["<<", "y"]}),
    "a quoted << key": ('"<<": 1\n', {"<<": 1}),
    "a merge key": ("a:\n  <<: {x: 1, y: 2}\n  y: 3\n", {"a": {"x": 1, "y": 3}}),
    "a list of merges": ("a:\n  <<: [{x: 1}, {z: 2}]\n", {"a": {"x": 1, "z": 2}}),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_an_unrelated_anchor_does_not_change_the_answer(name: str) -> None:
    text, expected = DOCUMENTS[name]
    assert yaml_value(text) == expected
    assert yaml_value(UNRELATED_ANCHOR + text) == {"unrelated": 0, **expected}
    assert yaml_documents(UNRELATED_ANCHOR + text) == [{"unrelated": 0, **expected}]
    assert yaml_first_document(UNRELATED_ANCHOR + text) == {"unrelated": 0, **expected}


def test_a_merge_key_merges_the_anchored_mapping() -> None:
    text = "base: &base {x: 1, y: 2}\nthing:\n  <<: *base\n  y: 3\n"
    assert yaml_value(text) == {"base": {"x": 1, "y": 2}, "thing": {"x": 1, "y": 3}}


def test_a_merge_of_text_is_refused_on_both_paths() -> None:
    import yaml

    for text in ("a:\n  <<: x\n", UNRELATED_ANCHOR + "a:\n  <<: x\n"):
        with pytest.raises(yaml.YAMLError, match="expected a mapping"):
            yaml_value(text)
