"""Load a bundle directory of the older registry+v1 format (``manifests/`` + ``metadata/``).

The result is the :class:`Bundle` that ``opm render`` would produce for the directory, so bundles
from directories and from File-Based Catalogs can be resolved together. The mapping follows
operator-registry's bundle parser: metadata files are recognised by what they hold, not by their
names (the first file of each kind wins); legacy dependencies become required properties as OLM
maps them; the CSV gives the name, version, upgrade edges and APIs. Where operator-registry would
silently ignore a file (a malformed dependencies.yaml), this loader reports it and goes on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deppy.catalog.model import Bundle, LoadProblem, Property
from deppy.catalog.properties import (
    CSV_METADATA,
    GVK_PROVIDED,
    GVK_REQUIRED,
    LABEL,
    LABEL_REQUIRED,
    PACKAGE,
    PACKAGE_REQUIRED,
    csv_metadata_of,
    interpret,
    parse_version_tolerant,
)
from deppy.catalog.semver import VersionError
from deppy.errors import InputError, excerpt, not_a_file
from deppy.input_limits import UnsafeInput, yaml_first_document, yaml_problem

__all__ = ["BundleDir", "load_bundle_dir", "looks_like_bundle_dir"]

ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1"
ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1"
CSV_KIND = "ClusterServiceVersion"


@dataclass(frozen=True, slots=True)
class BundleDir:
    """A loaded bundle directory.

    ``bundle`` is None only when no version can be known (no CSV and a directory name that is not
    a version); ``problems`` then says so, and the package and channels are still there.
    """

    bundle: Bundle | None
    package: str
    channels: tuple[str, ...]
    default_channel: str | None
    problems: tuple[LoadProblem, ...]


def looks_like_bundle_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` has the layout of a bundle directory (a metadata/ or manifests/ folder)."""
    root = Path(path)
    return (root / "metadata").is_dir() or (root / "manifests").is_dir()


@dataclass(slots=True)
class _Metadata:
    annotations: Mapping[str, Any] | None = None
    annotations_file: str = ""
    dependencies: list[Any] | None = None
    dependencies_file: str = ""
    properties: list[Any] | None = None
    properties_file: str = ""


def _first_document(path: Path) -> Any:
    """The first YAML/JSON document of a file, as operator-registry's decodeFileFS reads it."""
    return yaml_first_document(path.read_bytes())


def _yaml_error(err: yaml.YAMLError | UnsafeInput) -> str:
    return str(err) if isinstance(err, UnsafeInput) else yaml_problem(err)


class _DirLoader:
    def __init__(self, root: Path, catalog: str) -> None:
        self.root = root
        self.catalog = catalog
        self.problems: list[LoadProblem] = []

    def problem(self, file: Path | str, obj: str, why: str) -> None:
        self.problems.append(LoadProblem(str(file), obj, why))

    def read_metadata(self) -> _Metadata:
        found = _Metadata()
        directory = self.root / "metadata"
        if not directory.is_dir():
            self.problem(
                directory,
                "",
                "no metadata/ directory; a bundle needs metadata/annotations.yaml naming its "
                "package and channels",
            )
            return found
        for path in sorted(p for p in directory.iterdir() if p.is_file()):
            try:
                doc = _first_document(path)
            except (yaml.YAMLError, UnsafeInput) as err:
                self.problem(
                    path,
                    "",
                    f"{_yaml_error(err)}; operator-registry ignores this file, so the bundle is "
                    "loaded without it — fix the YAML",
                )
                continue
            except OSError as err:
                self.problem(path, "", f"cannot read: {err.strerror}")
                continue
            if isinstance(doc, Mapping):
                self.recognise(found, path, doc)
        return found

    def recognise(self, found: _Metadata, path: Path, doc: Mapping[str, Any]) -> None:
        """Sort a metadata file by content; later files of a kind already seen are reported."""
        annotations = doc.get("annotations")
        keys = (ANNOTATION_PACKAGE, ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL)
        if (
            found.annotations is None
            and isinstance(annotations, Mapping)
            and any(annotations.get(k) for k in keys)
        ):
            found.annotations, found.annotations_file = annotations, str(path)
        for kind in ("dependencies", "properties"):
            items = doc.get(kind)
            if not items:
                continue
            if not isinstance(items, list):
                self.problem(path, kind, "must be a list of {type, value} objects; ignored")
            elif getattr(found, kind) is None:
                setattr(found, kind, items)
                setattr(found, f"{kind}_file", str(path))
            else:
                first = getattr(found, f"{kind}_file")
                self.problem(
                    path,
                    kind,
                    f"{kind} are already declared in {first}; operator-registry uses only the "
                    "first such file, so these are ignored — merge them into one file",
                )

    def read_csv(self) -> tuple[Mapping[str, Any] | None, str]:
        directory = self.root / "manifests"
        if not directory.is_dir():
            return None, str(directory)
        for path in sorted(directory.iterdir()):
            if path.name.startswith(".") or not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError as err:
                self.problem(path, "", f"cannot read: {err.strerror}")
                continue
            if CSV_KIND.encode() not in data:
                continue
            try:
                doc = yaml_first_document(data)
            except (yaml.YAMLError, UnsafeInput) as err:
                self.problem(path, "", f"{_yaml_error(err)}; the manifest is skipped")
                continue
            if isinstance(doc, Mapping) and doc.get("kind") == CSV_KIND:
                return doc, str(path)
        return None, str(directory)

    def dependency_properties(self, meta: _Metadata) -> list[Property]:
        """Legacy dependencies as the required properties OLM turns them into."""
        out: list[Property] = []
        for i, dep in enumerate(meta.dependencies or (), 1):
            where = f"dependency {i}"
            if not isinstance(dep, Mapping) or not isinstance(dep.get("type"), str):
                self.problem(meta.dependencies_file, where, "needs a 'type'; it is ignored")
                continue
            dtype, value = dep["type"], dep.get("value")
            if dtype == PACKAGE:
                if not isinstance(value, Mapping):
                    self.problem(
                        meta.dependencies_file,
                        where,
                        "olm.package dependency needs a value with packageName and version; "
                        "it is ignored",
                    )
                    continue
                out.append(
                    Property(
                        PACKAGE_REQUIRED,
                        {
                            "packageName": value.get("packageName"),
                            "versionRange": value.get("version"),
                        },
                    )
                )
            elif dtype == GVK_PROVIDED:
                out.append(Property(GVK_REQUIRED, value))
            elif dtype == LABEL:
                out.append(Property(LABEL_REQUIRED, value))
            else:
                # olm.constraint passes through; unknown types too, as opm render keeps them.
                out.append(Property(dtype, value))
        return out

    def declared_properties(self, meta: _Metadata) -> list[Property]:
        out: list[Property] = []
        for i, item in enumerate(meta.properties or (), 1):
            if isinstance(item, Mapping) and isinstance(item.get("type"), str):
                out.append(Property(item["type"], item.get("value")))
            else:
                self.problem(meta.properties_file, f"property {i}", "needs a 'type'; it is ignored")
        return out


def _csv_apis(
    csv: Mapping[str, Any], section: str, role: str, problems: list[str]
) -> list[dict[str, Any]]:
    """GVK values of a CSV's owned or required CRDs ("plural.group" names) or API services."""
    spec = csv.get("spec")
    defs = spec.get(section) if isinstance(spec, Mapping) else None
    items = defs.get(role) if isinstance(defs, Mapping) else None
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping):
            continue
        group = item.get("group", "")
        if section == "customresourcedefinitions":
            name = item.get("name")
            if not isinstance(name, str) or "." not in name:
                problems.append(
                    f"spec.{section}.{role}: CRD name {excerpt(name)} is not <plural>.<group>; "
                    "the API is ignored — use the CRD's full name"
                )
                continue
            group = name.split(".", 1)[1]
        out.append({"group": group, "kind": item.get("kind"), "version": item.get("version")})
    return out


def _related_images(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """spec.relatedImages, then the operator's own container images, as opm render lists them
    (minus the bundle image, which a directory does not know)."""
    images: dict[str, None] = {}
    related = spec.get("relatedImages")
    for item in related if isinstance(related, list) else ():
        if isinstance(item, Mapping) and isinstance(item.get("image"), str) and item["image"]:
            images[item["image"]] = None
    operator_images: set[str] = set()
    install = spec.get("install")
    deployments = _dig(install, "spec", "deployments")
    for deployment in deployments if isinstance(deployments, list) else ():
        pod = _dig(deployment, "spec", "template", "spec")
        for key in ("containers", "initContainers"):
            containers = pod.get(key) if isinstance(pod, Mapping) else None
            for container in containers if isinstance(containers, list) else ():
                image = container.get("image") if isinstance(container, Mapping) else None
                if isinstance(image, str) and image:
                    operator_images.add(image)
    images.update(dict.fromkeys(sorted(operator_images)))
    return tuple(images)


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _spec_text(csv: Mapping[str, Any], key: str) -> str | None:
    spec = csv.get("spec")
    value = spec.get(key) if isinstance(spec, Mapping) else None
    return value if isinstance(value, str) and value else None


def _annotations(csv: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = csv.get("metadata")
    ann = meta.get("annotations") if isinstance(meta, Mapping) else None
    return ann if isinstance(ann, Mapping) else {}


def _dedupe(props: list[Property]) -> list[Property]:
    """operator-registry's propertySet: the first of equal properties is kept."""
    out: list[Property] = []
    for prop in props:
        if prop not in out:
            out.append(prop)
    return out


def load_bundle_dir(path: str | os.PathLike[str], *, catalog: str = "") -> BundleDir:
    """Load the bundle directory at ``path``; bad files become problems, never exceptions.

    Raises :class:`InputError` only when ``path`` is not a readable bundle directory at all.
    """
    root = Path(path)
    if not root.is_dir():
        raise InputError(
            str(root),
            not_a_file(root.stat().st_mode, "a bundle directory")
            if root.exists()
            else "bundle directory not found",
            "give a directory that holds manifests/ and metadata/",
        )
    if not looks_like_bundle_dir(root):
        raise InputError(
            str(root),
            "not a bundle directory (no manifests/ or metadata/ inside)",
            "give the directory that holds manifests/ and metadata/",
        )
    loader = _DirLoader(root, catalog)
    meta = loader.read_metadata()
    annotations = meta.annotations or {}
    for key in (ANNOTATION_PACKAGE, ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL):
        value = annotations.get(key)
        if value is not None and not isinstance(value, str):
            loader.problem(
                meta.annotations_file, key, f"must be a string, not {excerpt(value)}; ignored"
            )
    package = _text_annotation(annotations, ANNOTATION_PACKAGE)
    channels_text = _text_annotation(annotations, ANNOTATION_CHANNELS)
    channels = tuple(c.strip() for c in channels_text.split(",") if c.strip())
    default_channel = _text_annotation(annotations, ANNOTATION_DEFAULT_CHANNEL) or None
    if meta.annotations is None:
        loader.problem(
            root / "metadata",
            "",
            "no annotations file (a YAML file with 'annotations:' naming "
            f"{ANNOTATION_PACKAGE}); add metadata/annotations.yaml",
        )
    elif not package:
        loader.problem(meta.annotations_file, ANNOTATION_PACKAGE, "is missing; name the package")
    elif not channels:
        loader.problem(meta.annotations_file, ANNOTATION_CHANNELS, "is missing; list the channels")

    bundle = _build_bundle(loader, meta, package) if package else None
    return BundleDir(bundle, package, channels, default_channel, tuple(loader.problems))


def _text_annotation(annotations: Mapping[str, Any], key: str) -> str:
    value = annotations.get(key)
    return value.strip() if isinstance(value, str) else ""


def _csv_properties(csv: Mapping[str, Any], problems: list[str]) -> list[Property]:
    """The properties opm render derives from a CSV: its APIs and its searchable metadata."""
    props = [
        Property(ptype, value)
        for ptype, role in ((GVK_PROVIDED, "owned"), (GVK_REQUIRED, "required"))
        for section in ("customresourcedefinitions", "apiservicedefinitions")
        for value in _csv_apis(csv, section, role, problems)
    ]
    props.append(Property(CSV_METADATA, csv_metadata_of(csv)))
    return props


def _build_bundle(loader: _DirLoader, meta: _Metadata, package: str) -> Bundle | None:
    csv, csv_file = loader.read_csv()
    if csv is None:
        name, version_text = _guess_identity(loader, package, csv_file)
        if version_text is None:
            return None
        csv = {}
    else:
        meta_obj = csv.get("metadata")
        csv_name = meta_obj.get("name") if isinstance(meta_obj, Mapping) else None
        version_text = _spec_text(csv, "version")
        if not isinstance(csv_name, str) or not csv_name or version_text is None:
            loader.problem(
                csv_file,
                CSV_KIND,
                "needs metadata.name and spec.version (a string like 1.2.3); cannot build a "
                "bundle without them",
            )
            return None
        name = csv_name
    props = loader.declared_properties(meta)
    props.append(Property(PACKAGE, {"packageName": package, "version": version_text}))
    if csv:
        csv_problems: list[str] = []
        props.extend(_csv_properties(csv, csv_problems))
        for why in csv_problems:
            loader.problem(csv_file, CSV_KIND, why)
    props.extend(loader.dependency_properties(meta))
    props = _dedupe(props)
    facts = interpret(props)
    for warning in facts.warnings:
        loader.problem(csv_file, CSV_KIND, warning)
    if facts.errors or facts.version is None:
        for error in facts.errors:
            loader.problem(loader.root, f"bundle {name}", f"{error}; no bundle is built")
        return None
    annotations = _annotations(csv)
    spec = csv.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    skips = spec.get("skips")
    skip_range = annotations.get("olm.skipRange")
    return facts.bundle(
        name=name,
        package=package,
        image="",  # the bundle image; a directory cannot know it (containerImage is the operator's)
        catalog=loader.catalog,
        source=str(loader.root),
        properties=props,
        related_images=_related_images(spec),
        replaces=_spec_text(csv, "replaces"),
        skips=tuple(s for s in (skips if isinstance(skips, list) else ()) if isinstance(s, str)),
        skip_range=skip_range if isinstance(skip_range, str) and skip_range else None,
    )


def _guess_identity(loader: _DirLoader, package: str, where: str) -> tuple[str, str | None]:
    """Without a CSV, the version can only come from the directory layout of operator repos:
    operators/<package>/<version>/, sometimes with the bundle one level down (<version>/bundle/).
    """
    names = (loader.root.name, loader.root.parent.name)
    for dirname in names:
        try:
            version = parse_version_tolerant(dirname)
        except VersionError:
            continue
        text = version.canonical
        name = f"{package}.v{text}"
        loader.problem(
            where,
            "",
            "no ClusterServiceVersion in manifests/: the bundle is built from metadata/ alone, "
            f"with version {text} taken from the directory name {excerpt(dirname)} and the name "
            f"{name} guessed; add the CSV for the real name, APIs and upgrade edges",
        )
        return name, text
    loader.problem(
        where,
        "",
        "no ClusterServiceVersion in manifests/, and neither directory name "
        f"{' nor '.join(repr(n) for n in names)} is a version, so no bundle can be built (a bundle "
        "needs a version); add manifests/<name>.clusterserviceversion.yaml",
    )
    return "", None
