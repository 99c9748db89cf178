"""YAML out, through libyaml's emitter as YAML in goes through its parser.

PyYAML's own emitter is pure Python and walks a string character by character: an answer
holding a catalog's long strings (CSV descriptions, embedded manifests, a hostile catalog's
megabyte values) took 10–20× as long as ``-o json`` (issue 26, group 14). libyaml's emitter
(``CSafeDumper``) writes the same values within a small factor of orjson; it folds long
double-quoted strings at other points than PyYAML's (both read back to the same value). It sits
beside the loader (:mod:`deppy.input_limits.yaml_events`), the other half of deppy's YAML.
"""

from __future__ import annotations

from typing import Any


def yaml_text(
    data: Any, *, width: int = 100, allow_unicode: bool = False, sort_keys: bool = False
) -> str:
    """``data`` (JSON values) as one YAML document, keys in the data's own order (in name
    order with ``sort_keys``, as Go's YAML writers put them)."""
    import yaml  # deferred: most commands write no YAML

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump(
        data, Dumper=dumper, sort_keys=sort_keys, width=width, allow_unicode=allow_unicode
    )
    return text


def plain_yaml_documents(documents: list[Any], *, width: int = 100) -> str:
    """``documents`` as YAML documents separated by ``---``, every value written where it
    stands: no anchors and aliases (``&id001``/``*id001``) where the data shares an object, as
    manifests do (one label set for a Deployment's selector and its pods). kubectl reads
    aliases, but a person reading or diffing manifests, and some tools, should not meet them."""
    import yaml

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Plain(dumper):  # type: ignore[misc]
        def ignore_aliases(self, data: Any) -> bool:
            return True

    text: str = yaml.dump_all(documents, Dumper=Plain, sort_keys=False, width=width)
    return text
