"""Load a File-Based Catalog (FBC) the way operator-registry reads one, but without giving up.

opm stops at the first bad object; a resolver that refuses a whole catalog because one of its
thousands of bundles is broken is of little use, so this loader keeps every valid object and turns
each invalid one into a :class:`LoadProblem` that names the file, the object and the fix. What
counts as a file, an object and a valid value follows operator-registry (``alpha/declcfg``):

* every regular file under the root is read, except ``.indexignore`` files and what they ignore;
* a file whose first non-blank character is ``{`` is a JSON stream, any other a YAML stream;
* ``olm.package``, ``olm.channel``, ``olm.bundle`` and ``olm.deprecations`` are understood, other
  schemas are counted and ignored, objects without a schema are problems.

Speed matters (a full community index is tens of megabytes): files are parsed once with orjson
or libyaml, parsed values are kept as they are, and versions and APIs are parsed once per text.
"""

from __future__ import annotations

import base64
import binascii
import gc
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml

from deppy.catalog.fbc_files import YAML_LOADER, Doc, catalog_files, read_docs
from deppy.catalog.model import (
    Bundle,
    Catalog,
    Channel,
    ChannelEntry,
    Deprecation,
    LoadProblem,
    Package,
    Property,
)
from deppy.catalog.properties import interpret, parse_range
from deppy.catalog.semver import VersionError
from deppy.errors import InputError

__all__ = ["load_catalog", "load_catalog_documents"]

SCHEMA_PACKAGE = "olm.package"
SCHEMA_CHANNEL = "olm.channel"
SCHEMA_BUNDLE = "olm.bundle"
SCHEMA_DEPRECATIONS = "olm.deprecations"


# ---------------------------------------------------------------------------------------------
# What the objects mean.


def _describe(schema: str, obj: Mapping[str, Any], doc: Doc) -> str:
    """How a problem names an object: by what it says it is, and where it starts."""
    name, package = obj.get("name"), obj.get("package")
    if schema == SCHEMA_DEPRECATIONS:
        label = f"{schema} of package {package}"
    else:
        label = f"{schema} {name}" if isinstance(name, str) and name else f"{schema} without a name"
        if schema == SCHEMA_CHANNEL and isinstance(package, str) and package:
            label += f" of package {package}"
    return f"{label} ({doc.where})"


def _list_field(obj: Mapping[str, Any], key: str) -> list[Any]:
    """An optional list field (absent or null is empty); anything else is the object's error."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"field '{key}' must be a list, not {value!r}")
    return value


def _opt_text(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, not {value!r}")
    return value


def _req_text(obj: Mapping[str, Any], key: str, fix: str) -> str:
    value = obj.get(key)
    if isinstance(value, str) and value:
        return value
    shown = "is missing" if value in (None, "") else f"must be a string, not {value!r}"
    raise ValueError(f"field {key!r} {shown}; {fix}")


def _text_list(obj: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"field {key!r} must be a list of strings, not {value!r}")
    return tuple(value)


@dataclass(slots=True)
class _RawChannel:
    channel: Channel
    file: str
    doc: Doc


class _Loader:
    """Collects the objects of one catalog; cross-object checks run in :meth:`finish`."""

    def __init__(self, root: Path, name: str, priority: int) -> None:
        self.root = root
        self.name = name
        self.priority = priority
        self.problems: list[LoadProblem] = []
        self.packages: dict[str, Package] = {}
        self.channels: dict[tuple[str, str], _RawChannel] = {}
        self.bundles: dict[tuple[str, str], Bundle] = {}
        self.deprecations: dict[str, list[Deprecation]] = {}
        self.deprecation_sources: dict[str, str] = {}
        self.others: dict[str, int] = {}
        self.file = ""
        self.file_dir = root

    def problem(self, obj: str, why: str) -> None:
        self.problems.append(LoadProblem(self.file, obj, why))

    def load_file(self, rel: str) -> None:
        path = self.root / rel if rel else self.root
        self.file = str(path)
        self.file_dir = path.parent
        try:
            data = path.read_bytes()
        except OSError as err:
            self.problem("", f"cannot read: {err.strerror}")
            return
        self.load_bytes(str(path), data, path.suffix.lower())

    def load_bytes(self, label: str, data: bytes, suffix: str) -> None:
        """One file's content, named ``label`` in problems; ``suffix`` hints JSON or YAML."""
        self.file = label
        file_problems: list[tuple[str, str]] = []
        docs = read_docs(data, suffix, file_problems)
        for where, why in file_problems:
            self.problem(where, why)
        for doc in docs:
            self.add(doc)

    def add(self, doc: Doc) -> None:
        obj = doc.obj
        if obj is None:
            return
        if not isinstance(obj, dict):
            self.problem(
                doc.where,
                f"not an FBC object (a {type(obj).__name__}, not a mapping); FBC files hold "
                "JSON objects or YAML mappings with a 'schema' field — remove the file or add "
                "it to .indexignore",
            )
            return
        schema = obj.get("schema")
        if not isinstance(schema, str) or not schema:
            self.problem(
                doc.where,
                "object has no 'schema' field; give it one (olm.package, olm.channel, olm.bundle "
                "...) or add the file to .indexignore",
            )
            return
        adder = {
            SCHEMA_BUNDLE: self.add_bundle,
            SCHEMA_CHANNEL: self.add_channel,
            SCHEMA_PACKAGE: self.add_package,
            SCHEMA_DEPRECATIONS: self.add_deprecations,
        }.get(schema)
        if adder is None:
            self.others[schema] = self.others.get(schema, 0) + 1
            return
        try:
            adder(obj, doc)
        except ValueError as err:
            what = _describe(schema, obj, doc)
            self.problem(what, f"{err}; the object is skipped")

    def source(self, doc: Doc) -> str:
        return f"{self.file}:{doc.line}" if doc.line is not None else f"{self.file} ({doc.where})"

    def add_package(self, obj: dict[str, Any], doc: Doc) -> None:
        name = _req_text(obj, "name", "name the package")
        description = obj.get("description")
        package = Package(
            name=name,
            default_channel=_opt_text(obj, "defaultChannel"),
            description=description if isinstance(description, str) else "",
            source=self.source(doc),
        )
        if name in self.packages:
            raise ValueError(
                f"duplicate package, first defined at {self.packages[name].source}; "
                "remove one of them"
            )
        self.packages[name] = package

    def add_channel(self, obj: dict[str, Any], doc: Doc) -> None:
        package = _req_text(obj, "package", "name the channel's package")
        name = _req_text(obj, "name", "name the channel")
        what = _describe(SCHEMA_CHANNEL, obj, doc)
        raw_entries = _list_field(obj, "entries")
        entries: list[ChannelEntry] = []
        seen: set[str] = set()
        for i, raw in enumerate(raw_entries, 1):
            try:
                entry = self.channel_entry(raw, what, i)
            except ValueError as err:
                self.problem(what, f"entry {i}: {err}; the entry is skipped")
                continue
            if entry.name in seen:
                self.problem(what, f"entry {i}: duplicate entry {entry.name}; the entry is skipped")
                continue
            seen.add(entry.name)
            entries.append(entry)
        key = (package, name)
        if key in self.channels:
            first = self.channels[key].channel.source
            raise ValueError(f"duplicate channel, first defined at {first}; merge or remove one")
        channel = Channel(package, name, tuple(entries), self.source(doc))
        self.channels[key] = _RawChannel(channel, self.file, doc)

    def channel_entry(self, raw: Any, what: str, index: int) -> ChannelEntry:
        if not isinstance(raw, dict):
            raise ValueError(f"must be an object with a name, not {raw!r}")
        name = _req_text(raw, "name", "name the bundle this entry stands for")
        skip_text = _opt_text(raw, "skipRange")
        skip_range = None
        if skip_text is not None:
            try:
                skip_range = parse_range(skip_text)
            except VersionError as err:
                self.problem(
                    what,
                    f"entry {index} ({name}): skipRange: {err}; the entry is kept without its "
                    "skipRange",
                )
        return ChannelEntry(
            name=name,
            replaces=_opt_text(raw, "replaces"),
            skips=_text_list(raw, "skips"),
            skip_range=skip_range,
            skip_range_text=skip_text,
        )

    def add_bundle(self, obj: dict[str, Any], doc: Doc) -> None:
        name = _req_text(obj, "name", "name the bundle")
        package = _req_text(obj, "package", "name the bundle's package")
        what = _describe(SCHEMA_BUNDLE, obj, doc)
        raw_props = _list_field(obj, "properties")
        props: list[Property] = []
        for i, raw in enumerate(raw_props, 1):
            if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                raise ValueError(f"property {i} must be an object with a 'type' string: {raw!r}")
            props.append(Property(raw["type"], raw.get("value")))
        facts = interpret(props, self.find_csv)
        for warning in facts.warnings:
            self.problem(what, warning)
        if facts.package is not None and facts.package != package:
            facts.errors.append(
                f"its olm.package property names package {facts.package!r} but the bundle is in "
                f"package {package!r}; make them agree"
            )
        if facts.errors or facts.version is None:
            for error in facts.errors:
                self.problem(what, f"{error}; the bundle is skipped")
            return
        key = (package, name)
        if key in self.bundles:
            raise ValueError(
                f"duplicate bundle, first defined at {self.bundles[key].source}; remove one"
            )
        image = obj.get("image")
        self.bundles[key] = facts.bundle(
            name=name,
            package=package,
            image=image if isinstance(image, str) else "",
            catalog=self.name,
            source=self.source(doc),
            properties=props,
            related_images=self.related_images(obj, what),
            replaces=_opt_text(obj, "replaces"),
            skips=_text_list(obj, "skips"),
            skip_range=_opt_text(obj, "skipRange"),
        )

    def related_images(self, obj: Mapping[str, Any], what: str) -> tuple[str, ...]:
        raw = obj.get("relatedImages")
        if not raw:
            return ()
        images: list[str] = []
        for item in raw if isinstance(raw, list) else [raw]:
            image = item.get("image") if isinstance(item, dict) else None
            if isinstance(image, str):
                if image:
                    images.append(image)
            else:
                self.problem(what, f"relatedImages entry {item!r} has no image; it is ignored")
        return tuple(images)

    def find_csv(self, objects: list[Any]) -> Mapping[str, Any] | None:
        """The CSV among olm.bundle.object values, decoding as little as possible."""
        for value in objects:
            if not isinstance(value, Mapping):
                raise ValueError(f"value must be an object with 'data' or 'ref', not {value!r}")
            data = value.get("data")
            ref = value.get("ref")
            if isinstance(data, str):
                try:
                    raw = base64.b64decode(data)
                except (binascii.Error, ValueError) as err:
                    raise ValueError(f"'data' is not base64 ({err})") from None
            elif isinstance(ref, str):
                raw = self.read_ref(ref)
            else:
                raise ValueError("value must have a base64 'data' or a 'ref' file path")
            if b"ClusterServiceVersion" not in raw:
                continue
            obj = _decode_manifest(raw)
            if isinstance(obj, Mapping) and obj.get("kind") == "ClusterServiceVersion":
                return obj
        return None

    def read_ref(self, ref: str) -> bytes:
        target = (self.file_dir / ref).resolve()
        root = self.root.resolve()
        if root.is_file():
            root = root.parent
        if target != root and root not in target.parents:
            raise ValueError(f"'ref' {ref!r} points outside the catalog")
        try:
            return target.read_bytes()
        except OSError as err:
            raise ValueError(f"'ref' {ref!r} cannot be read: {err.strerror}") from None

    def add_deprecations(self, obj: dict[str, Any], doc: Doc) -> None:
        package = _req_text(obj, "package", "name the package the deprecations are for")
        if package in self.deprecation_sources:
            raise ValueError(
                f"second olm.deprecations for package {package}, the first is at "
                f"{self.deprecation_sources[package]}; merge them into one"
            )
        self.deprecation_sources[package] = self.source(doc)
        what = _describe(SCHEMA_DEPRECATIONS, obj, doc)
        entries = obj.get("entries")
        if not isinstance(entries, list):
            raise ValueError("field 'entries' must be a list of {reference, message} objects")
        found: list[Deprecation] = []
        for i, entry in enumerate(entries, 1):
            try:
                found.append(_deprecation(package, entry))
            except ValueError as err:
                self.problem(what, f"entry {i}: {err}; the entry is skipped")
        self.deprecations[package] = found

    def finish(self) -> Catalog:
        self.drop_orphans()
        channels = self.check_channels()
        self.check_default_channels(channels)
        deprecations = self.check_deprecations(channels)
        return Catalog(
            name=self.name,
            priority=self.priority,
            path=str(self.root),
            packages={k: self.packages[k] for k in sorted(self.packages)},
            channels={k: channels[k] for k in sorted(channels)},
            bundles={k: self.bundles[k] for k in sorted(self.bundles)},
            deprecations=tuple(deprecations),
            problems=tuple(self.problems),
            others=dict(sorted(self.others.items())),
        )

    def drop_orphans(self) -> None:
        """Channels and bundles of a package with no olm.package object: one problem per package."""
        orphans: dict[str, list[str]] = {}
        for key, raw in list(self.channels.items()):
            if key[0] not in self.packages:
                orphans.setdefault(key[0], []).append(raw.channel.source)
                del self.channels[key]
        for key, bundle in list(self.bundles.items()):
            if key[0] not in self.packages:
                orphans.setdefault(key[0], []).append(bundle.source)
                del self.bundles[key]
        for package, sources in sorted(orphans.items()):
            self.problems.append(
                LoadProblem(
                    sources[0].rsplit(":", 1)[0],
                    f"package {package}",
                    f"{len(sources)} channel/bundle objects name this package but there is no "
                    f"olm.package object for it, so they are skipped; add "
                    f"{{schema: olm.package, name: {package}, defaultChannel: ...}}",
                )
            )

    def check_channels(self) -> dict[tuple[str, str], Channel]:
        """Drop channel entries without a bundle and bundles that no channel offers."""
        channels: dict[tuple[str, str], Channel] = {}
        in_channel: set[tuple[str, str]] = set()
        for key, raw in self.channels.items():
            channel = raw.channel
            kept = []
            for entry in channel.entries:
                if (channel.package, entry.name) in self.bundles:
                    kept.append(entry)
                    in_channel.add((channel.package, entry.name))
                else:
                    self.problems.append(
                        LoadProblem(
                            raw.file,
                            f"{SCHEMA_CHANNEL} {channel.name} of package {channel.package} "
                            f"({raw.doc.where})",
                            f"entry {entry.name} has no valid olm.bundle in this catalog; the "
                            "entry is skipped — add the bundle or remove the entry",
                        )
                    )
            if len(kept) != len(channel.entries):
                channel = Channel(channel.package, channel.name, tuple(kept), channel.source)
            channels[key] = channel
        for key, bundle in list(self.bundles.items()):
            if key not in in_channel:
                file, _, _ = bundle.source.rpartition(":")
                self.problems.append(
                    LoadProblem(
                        file or bundle.source,
                        f"{SCHEMA_BUNDLE} {bundle.name}",
                        "no olm.channel of its package lists it, so OLM cannot install it; it is "
                        "skipped — add it to a channel's entries",
                    )
                )
                del self.bundles[key]
        return channels

    def check_default_channels(self, channels: Mapping[tuple[str, str], Channel]) -> None:
        for name, package in list(self.packages.items()):
            default = package.default_channel
            if default is not None and (name, default) in channels:
                continue
            has_channels = any(key[0] == name for key in channels)
            if default is None and not has_channels:
                continue
            why = (
                "has no defaultChannel; set it to one of its channels"
                if default is None
                else f"its defaultChannel {default!r} is not one of its channels; the package "
                "is kept without a default channel — fix defaultChannel"
            )
            file, _, _ = package.source.rpartition(":")
            self.problems.append(LoadProblem(file or package.source, f"olm.package {name}", why))
            self.packages[name] = Package(name, None, package.description, package.source)

    def check_deprecations(self, channels: Mapping[tuple[str, str], Channel]) -> list[Deprecation]:
        out: list[Deprecation] = []
        for package in sorted(self.deprecations):
            source = self.deprecation_sources[package]
            file, _, _ = source.rpartition(":")
            for dep in self.deprecations[package]:
                why = None
                if package not in self.packages:
                    why = f"package {package} is not in this catalog"
                elif dep.schema == SCHEMA_CHANNEL and (package, dep.name) not in channels:
                    why = f"channel {dep.name} is not a channel of {package}"
                elif dep.schema == SCHEMA_BUNDLE and (package, dep.name) not in self.bundles:
                    why = f"bundle {dep.name} is not a bundle of {package}"
                if why is None:
                    out.append(dep)
                else:
                    self.problems.append(
                        LoadProblem(
                            file or source,
                            f"{SCHEMA_DEPRECATIONS} of package {package}",
                            f"deprecates something unknown: {why}; the entry is skipped",
                        )
                    )
        return out


def _deprecation(package: str, entry: Any) -> Deprecation:
    if not isinstance(entry, dict) or not isinstance(entry.get("reference"), dict):
        raise ValueError("must be an object with a 'reference' object and a 'message'")
    ref = entry["reference"]
    schema = ref.get("schema")
    if schema not in (SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE):
        raise ValueError(
            f"reference schema {schema!r} must be olm.package, olm.channel or olm.bundle"
        )
    name = ref.get("name")
    if schema == SCHEMA_PACKAGE:
        if name not in (None, ""):
            raise ValueError("a reference to olm.package must not have a name")
        name = None
    elif not isinstance(name, str) or not name:
        raise ValueError(f"a reference to {schema} needs the {schema} name")
    message = entry.get("message")
    if not isinstance(message, str) or not message:
        raise ValueError("'message' is missing; say why it is deprecated and what to use instead")
    return Deprecation(package, schema, name, message)


def _decode_manifest(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return yaml.load(raw, Loader=YAML_LOADER)
    except yaml.YAMLError as err:
        raise ValueError(f"a manifest is neither JSON nor YAML ({err})") from None


def load_catalog(
    path: str | os.PathLike[str], *, name: str | None = None, priority: int = 0
) -> Catalog:
    """Load every valid object of the File-Based Catalog at ``path`` (a directory or one file).

    Invalid objects are skipped and listed in ``Catalog.problems``. Raises :class:`InputError`
    only when the path cannot be read or when no installable bundle remains.
    """
    root = Path(path)
    if not root.exists():
        raise InputError(
            str(root), "catalog not found", "give the directory of a File-Based Catalog"
        )
    if not (root.is_dir() or root.is_file()):
        raise InputError(str(root), "not a directory or regular file", "give a catalog directory")
    if root.is_dir() and not os.access(root, os.R_OK | os.X_OK):
        raise InputError(str(root), "catalog directory cannot be read", "check its permissions")
    catalog_name = name if name is not None else (root.name if root.is_dir() else root.stem)
    loader = _Loader(root, catalog_name, priority)
    return _loaded(loader, str(root), lambda: _load_files(loader, root))


def load_catalog_documents(
    files: Mapping[str, bytes], *, name: str, priority: int = 0, where: str
) -> Catalog:
    """An FBC held in memory — an HTTP response (catalogd's ``/api/v1/all``), the keys of a
    ConfigMap — each entry one file's bytes, named by its key. ``where`` names the whole source
    in errors (a URL, a ConfigMap). Same rules and problems as :func:`load_catalog`."""
    loader = _Loader(Path(where), name, priority)

    def load() -> None:
        for key in sorted(files):
            loader.load_bytes(f"{where}: {key}" if key else where, files[key], Path(key).suffix)

    return _loaded(loader, where, load)


def _load_files(loader: _Loader, root: Path) -> None:
    for rel in catalog_files(root, loader.problems):
        loader.load_file(rel)


def _loaded(loader: _Loader, where: str, load: Callable[[], None]) -> Catalog:
    # Loading allocates millions of long-lived, acyclic objects: every cyclic-GC pass would walk
    # all of them again for nothing (it made loading ~40% slower), so the collector rests meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        load()
        catalog = loader.finish()
    finally:
        if collecting:
            gc.enable()
    if not catalog.bundles and catalog.problems:  # nothing at all is an empty catalog
        first = f" (first problem: {catalog.problems[0]})" if catalog.problems else ""
        raise InputError(
            where,
            f"no valid bundle found in the catalog: {len(catalog.problems)} problems{first}",
            "point at a File-Based Catalog directory (olm.package/olm.channel/olm.bundle objects)",
        )
    return catalog
