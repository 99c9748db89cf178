"""``deppy properties``: a CSV with its ``operatorframework.io/properties`` annotation set.

The properties are those of a catalog bundle (``bundle=``: exactly what a resolution uses for
it), else synthesised from the CSV's own spec (what deppy assumes for a CSV installed without
the annotation). An annotation already there is overwritten, with a warning, as the seed
property-projection.md says. Output keeps the input's format (JSON stays JSON) and is
byte-stable: the same CSV and properties always print the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Property
from deppy.catalog.properties import projected_properties
from deppy.cluster.objects import KIND_CSV, describe
from deppy.cluster.projection import (
    PROJECTED_PROPERTIES_ANNOTATION,
    annotation_value,
    synthesise_properties,
)
from deppy.errors import InputError
from deppy.input_limits import UnsafeInput, json_value, read_input, yaml_documents

__all__ = ["AnnotatedCSV", "annotate_csv", "read_csv_file"]


@dataclass(frozen=True, slots=True)
class AnnotatedCSV:
    text: str
    annotation: str
    warnings: tuple[str, ...]


def read_csv_file(path: Path) -> tuple[dict[str, Any], bool]:
    """The CSV in ``path`` (YAML or JSON, one document) and whether it was JSON."""
    import yaml

    data = read_input(path)
    is_json = data.lstrip()[:1] == b"{"
    try:
        docs = [json_value(data)] if is_json else yaml_documents(data)
    except (orjson.JSONDecodeError, yaml.YAMLError, UnsafeInput) as error:
        raise InputError(str(path), f"not YAML or JSON: {' '.join(str(error).split())}") from None
    csvs = [d for d in docs if isinstance(d, Mapping) and d.get("kind") == KIND_CSV]
    if len(csvs) != 1:
        raise InputError(
            str(path),
            f"expected one ClusterServiceVersion, found {len(csvs)}",
            "give the CSV manifest of a bundle (manifests/*.clusterserviceversion.yaml)",
        )
    csv = dict(csvs[0])
    where = f"{path}: {describe(csv, KIND_CSV)}"
    metadata = csv.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InputError(
            f"{where}: metadata", f"expected a mapping, found a {type(metadata).__name__}"
        )
    annotations = (metadata or {}).get("annotations")
    if annotations is not None and not isinstance(annotations, Mapping):
        raise InputError(
            f"{where}: metadata.annotations",
            f"expected a mapping of text, found a {type(annotations).__name__}",
        )
    return csv, is_json


def bundle_properties(source: BundleSource, name: str) -> list[Property]:
    """The properties a resolution uses for the bundle called ``name`` (most preferred catalog)."""
    found = [b for b in source.all_bundles() if b.name == name]
    if not found:
        raise InputError(
            f"--bundle {name}",
            "no bundle of this name in the catalogs",
            "give a bundle name as 'deppy show' lists it, and --catalog for its catalog",
        )
    found.sort(key=lambda b: source.rank(b.catalog))
    return projected_properties(found[0])


def annotate_csv(
    csv: dict[str, Any], properties: list[Property] | None, *, package: str | None, as_json: bool
) -> AnnotatedCSV:
    """The CSV, printed with the annotation set to ``properties`` (None: synthesised)."""
    warnings: list[str] = []
    if properties is None:
        properties, problems = synthesise_properties(csv, package)
        warnings += problems
    value = annotation_value(properties)
    metadata = dict(csv.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    if PROJECTED_PROPERTIES_ANNOTATION in annotations:
        same = annotations[PROJECTED_PROPERTIES_ANNOTATION] == value
        if not same:
            warnings.append(
                f"{describe(csv, KIND_CSV)} already has a {PROJECTED_PROPERTIES_ANNOTATION} "
                "annotation; it is overwritten"
            )
    annotations[PROJECTED_PROPERTIES_ANNOTATION] = value
    metadata["annotations"] = annotations
    out = {**csv, "metadata": metadata}
    if as_json:
        text = orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n"
    else:
        from deppy.input_limits.yaml_writer import yaml_text

        text = yaml_text(out, width=1 << 20, allow_unicode=True)
    return AnnotatedCSV(text, value, tuple(warnings))
