"""What a new user tripped on in the README and the docs (issue 45, items 8, 12, 14-16): the
controller's install as steps that work on a fresh cluster, the image run locally, task 2's exit
3 said beside it, the image build reachable from the site, link texts that are the titles they
lead to, the store page's how-to first, ``Android`` explained where first met, and a ``path:``
Catalog's volume shown."""

from __future__ import annotations

import re

import yaml

from tests.docs_pages import ROOT, page, pages

SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_readme_installs_the_controller_as_the_install_page_does() -> None:
    """crds, wait until established, then the objects with the pushed image's digest: the one
    line `deppy manifests | kubectl apply -f -` deployed `deppy:latest`, which nothing builds,
    and applied CRDs and their objects at once."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = SH_BLOCK.search(page("controller/install.md"))
    assert install is not None
    steps = install.group(1)
    assert steps in readme
    lines = steps.splitlines()
    order = [next(n for n, line in enumerate(lines) if word in line)
             for word in ("make image", "skopeo copy", "--only crds", "kubectl wait",
                          "--only objects")]  # fmt: skip
    assert order == sorted(order)
    assert "--image" in lines[order[-1]] and "@$DIGEST" in lines[order[-1]]


def test_every_manifests_command_in_the_docs_names_its_image_and_no_placeholder() -> None:
    for name, text in pages().items():
        for block in SH_BLOCK.findall(text):
            for line in block.splitlines():
                if line.startswith("deppy manifests") and "--only crds" not in line:
                    assert "--image" in line, (name, line)
                assert "sha256:…" not in line, (name, line)  # --image refuses it


def test_the_image_page_runs_it_locally_from_podman_s_store() -> None:
    install = page("controller/install.md")
    assert "skopeo copy oci:dist/image:0.1.0 containers-storage:localhost/deppy:0.1.0" in install
    assert "podman run --rm localhost/deppy:0.1.0" in install
    commands = "".join(b for text in pages().values() for b in SH_BLOCK.findall(text))
    assert "podman run oci:" not in commands  # stored again as localhost/dist/image on each run


def test_task_2_says_its_exit_3_is_meant() -> None:
    readme = _words((ROOT / "README.md").read_text(encoding="utf-8"))
    task = readme[readme.index("2. **Resolve a ClusterExtension**") : readme.index("3. **See")]
    assert "exits 3 on purpose" in task and "OLM v1 refuses" in task


def test_the_image_build_is_a_page_of_the_site() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "- The image build: contributing/image.md" in nav
    assert page("contributing/image.md").strip() == '--8<-- "image/README.md"'
    assert (
        (ROOT / "image" / "README.md").read_text(encoding="utf-8").startswith("# The image build\n")
    )


def test_links_to_the_image_section_say_the_page_they_lead_to() -> None:
    title = re.search(r"^# (.+)$", page("controller/install.md"), re.M)
    assert title is not None
    links = re.compile(r"\[([^\]]+)\]\((?:\.\./)*controller/install\.md#the-image\)")
    found = [(name, text) for name, body in pages().items() for text in links.findall(body)]
    assert len(found) >= 2
    assert {text for _, text in found} == {f"{title.group(1)} › The image"}, found


def test_the_store_page_shows_how_before_how_it_works() -> None:
    text = page("catalogs/store.md")
    first_block = text.index("```sh")
    first_heading = text.index("\n## ")
    assert len(text[:first_block].split()) < 40 and first_block < first_heading
    assert "deppy catalog add" in text[first_block:first_heading]
    assert "## How the store works" in text


def test_android_is_explained_where_a_page_first_names_it() -> None:
    for name, text in pages().items():
        if name in ("CHANGELOG.md", "docs/controller/approval.md"):
            continue
        at = text.find("Android")
        if at >= 0:
            assert "RBAC" in text[at : at + 250], (name, text[at : at + 250])


def test_a_path_catalog_is_shown_with_its_volume() -> None:
    """The volume mounted in the controller's pod, where the Catalog's path points."""
    text = page("controller/catalogs.md")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    shown = [list(yaml.safe_load_all(b)) for b in blocks if "volumeMounts" in b]
    assert shown, "no example mounts a volume"
    patch, catalog = shown[0]
    spec = patch["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    assert container["name"] == "controller"  # the Deployment's container, merged by name
    (mount,) = container["volumeMounts"]
    assert {v["name"] for v in spec["volumes"]} == {mount["name"]}
    path = catalog["spec"]["source"]["path"]["path"]
    assert catalog["kind"] == "Catalog" and path.startswith(mount["mountPath"] + "/")


def test_build_times_are_given_with_the_load_they_were_measured_at() -> None:
    build = (ROOT / "image" / "README.md").read_text(encoding="utf-8")
    rows = [line for line in build.splitlines() if re.match(r"\| (first|again)", line)]
    assert len(rows) >= 3
    for row in rows:
        where, time = row.split(" | ")[1:3]
        assert "load" in where and re.search(r"\d+ s", time), row
    install = _words(page("controller/install.md"))
    said = install[install.index("**How long**") :][:900]
    assert "load" in said and "contributing/image.md" in said, said
