// The catalog browser: search, a package with its upgrade graph, a bundle's details.
import { get } from "./api.js";
import { bundleHref, description, h, link, pkgHref, svg, table, tag } from "./dom.js";

export async function home() {
  const listing = await get("/catalogs");
  if (listing.empty) return [h("h1", {}, "Browse catalogs"), h("p", { role: "status" }, listing.empty)];
  const packages = await get("/packages", { limit: 0 });
  const box = document.getElementById("search-box");
  const rows = packages.map((p) => [
    link(pkgHref(p.package), p.package), p.catalog, p.channels.join(", ") || "—", p.defaultChannel || "—",
    p.provider || "—", p.latest,
  ]);
  return [
    h("h1", {}, "Browse catalogs"),
    h("p", {}, "Search by package name, display name, keyword or API kind, with the box at the top (",
      h("a", { href: "#", onclick: (e) => { e.preventDefault(); box.focus(); } }, "go to search"),
      "). Then open a package to see its channels and upgrade graph."),
    h("h2", {}, `Loaded catalogs (${listing.origin})`),
    h("div", { class: "cards" }, listing.catalogs.map((c) =>
      h("div", { class: "card" },
        h("strong", {}, c.name), h("div", { class: "muted" }, `priority ${c.priority}`),
        h("div", {}, `${c.packages} packages, ${c.bundles} bundles`),
        h("div", {}, link(`#/check/${encodeURIComponent(c.name)}`, "Check which bundles cannot install"))))),
    h("h2", { id: "all-packages" }, `Packages (${new Set(packages.map((p) => p.package)).size})`),
    rows.length
      ? table(["Package", "Catalog", "Channels", "Default channel", "Provider", "Latest"], rows)
      : h("p", {}, "The loaded catalogs hold no package."),
  ];
}

export async function searchPage(q) {
  document.getElementById("search-box").value = q;
  const hits = await get("/packages", { q, limit: 100 });
  const rows = hits.map((hit) => [
    link(pkgHref(hit.package), hit.package), hit.displayName || "", hit.latest, hit.catalog,
    hit.field === "name" ? hit.match : `${hit.field}: ${hit.matched}`,
  ]);
  return [
    h("h1", {}, `Packages matching “${q}”`),
    hits.length
      ? table(["Package", "Display name", "Latest", "Catalog", "Match"], rows)
      : h("p", {}, "No package matches. Try a shorter word, an API kind or a keyword."),
  ];
}

function marks(bundle) {
  return ["head", "deprecated", "unreachable"].filter((m) => bundle[m]).map((m) => tag(m));
}

async function graphView(pkg, graphs, chosen) {
  const graph = graphs.find((g) => `${g.catalog}/${g.channel}` === chosen) || graphs[0];
  const picture = await get(`/packages/${encodeURIComponent(pkg)}/graph.svg`,
    { channel: graph.channel, catalog: graph.catalog });
  const counts = ["head", "deprecated", "unreachable"].map((m) =>
    `${graph.bundles.filter((b) => b[m]).length} ${m}`).join(", ");
  return [
    h("p", { class: "muted", id: "graph-summary" },
      `Channel ${graph.channel} of catalog ${graph.catalog}: ${graph.bundles.length} bundles, ${counts}. `,
      "Replaces edges arc on the left, skips on the right, a skipRange is a bracket beside the versions it covers. ",
      "Select a bundle to see its details."),
    svg(picture, `Upgrade graph of ${pkg}, channel ${graph.channel}`),
  ];
}

export async function packagePage(pkg, query) {
  const [data, graphData, about] = await Promise.all([
    get(`/packages/${encodeURIComponent(pkg)}`),
    get(`/packages/${encodeURIComponent(pkg)}/graph`),
    get(`/packages/${encodeURIComponent(pkg)}/description.html`),
  ]);
  const graphs = graphData.channels;
  const view = data.catalogs[0];
  const area = h("div", { id: "graph" });
  const tabs = h("div", { class: "tabs", role: "group", "aria-label": "Channel" });
  const show = async (key) => {
    for (const b of tabs.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.key === key));
    area.replaceChildren(...await graphView(pkg, graphs, key));
  };
  for (const g of graphs) {
    const key = `${g.catalog}/${g.channel}`;
    const label = `${g.channel}${g.default ? " (default)" : ""}${data.catalogs.length > 1 ? ` · ${g.catalog}` : ""}`;
    tabs.append(h("button", { type: "button", "data-key": key, "aria-pressed": "false", onclick: () => show(key) }, label));
  }
  const wanted = query.get("channel") ? `${query.get("catalog") || view.catalog}/${query.get("channel")}` : null;
  const first = wanted || (graphs[0] ? `${graphs[0].catalog}/${graphs[0].channel}` : null);
  if (first) await show(first);
  const resolveHref = `#/resolve?require=${encodeURIComponent(pkg)}`;
  const sections = data.catalogs.map((c) => catalogSection(pkg, c));
  return [
    h("h1", {}, view.displayName && view.displayName.trim() !== pkg ? `${pkg} — ${view.displayName}` : pkg),
    h("div", { class: "actions" },
      h("a", { href: resolveHref, class: "button", id: "resolve-package" }, `Resolve ${pkg}`),
      link(`#/upgrades?installed=${encodeURIComponent(`${pkg}@${view.versions.at(-1)?.version || ""}`)}`, "Upgrades from its oldest version")),
    about ? description(about) : null,
    h("h2", {}, "Upgrade graph"),
    tabs, area,
    sections,
  ];
}

function catalogSection(pkg, c) {
  const versions = c.versions.map((v) => [
    link(bundleHref(c.catalog, pkg, v.bundle), v.version), v.bundle, v.channels.join(", ") || "—",
    [v.maxOpenShiftVersion ? `OpenShift ≤ ${v.maxOpenShiftVersion}` : null,
      v.minKubeVersion ? `Kubernetes ≥ ${v.minKubeVersion}` : null].filter(Boolean).join("; ") || "—",
    [...v.requires.packages.map((p) => `package ${p}`), ...v.requires.apis.map((a) => `API ${a}`),
      ...v.requires.labels.map((l) => `label ${l}`),
      ...(v.requires.constraints ? [`${v.requires.constraints} olm.constraint`] : [])].join("; ") || "—",
  ]);
  return [
    h("h2", {}, `In catalog ${c.catalog}`),
    h("dl", { class: "facts" },
      h("dt", {}, "Default channel"), h("dd", {}, c.defaultChannel || "—"),
      h("dt", {}, "Channels"), h("dd", {}, c.channels.map((ch, i) => [i ? ", " : "",
        `${ch.name} (${ch.bundles} bundles, head ${ch.heads.join(", ") || "none"})`,
        ch.deprecated ? tag("deprecated") : null])),
      h("dt", {}, "Provided APIs"), h("dd", {}, c.providedApis.apis.length
        ? `${c.providedApis.apis.join("; ")} (in ${c.providedApis.version})` : "none")),
    c.deprecations.length ? [h("h2", {}, "Deprecations"), h("ul", {}, c.deprecations.map((d) =>
      h("li", {}, tag(d.scope, "deprecated"), " ", d.scope === "package" ? "" : `${d.name}: `, d.message)))] : null,
    h("h2", {}, "Versions (newest first)"),
    table(["Version", "Bundle", "Channels", "Cluster limits", "Needs"], versions),
  ];
}

export async function bundlePage(catalog, pkg, name) {
  const b = await get(`/packages/${encodeURIComponent(pkg)}/bundles/${encodeURIComponent(name)}`, { catalog });
  const channels = b.channels.map((c) => [c.name, c.replaces || "—", c.skips.join(", ") || "—", c.skipRange || "—"]);
  return [
    h("h1", {}, b.name),
    h("p", {}, link(pkgHref(pkg), `← ${pkg}`)),
    h("dl", { class: "facts" },
      h("dt", {}, "Package"), h("dd", {}, link(pkgHref(pkg), pkg)),
      h("dt", {}, "Version"), h("dd", {}, b.version),
      h("dt", {}, "Catalog"), h("dd", {}, b.catalog),
      h("dt", {}, "Image"), h("dd", {}, h("code", {}, b.image || "—")),
      h("dt", {}, "Deprecated"), h("dd", {}, b.deprecation ? [tag("deprecated"), " ", b.deprecation.message] : "no"),
      h("dt", {}, "Cluster limits"), h("dd", {}, [b.maxOpenShiftVersion ? `OpenShift ≤ ${b.maxOpenShiftVersion}` : null,
        b.minKubeVersion ? `Kubernetes ≥ ${b.minKubeVersion}` : null].filter(Boolean).join("; ") || "none"),
      h("dt", {}, "Needs packages"), h("dd", {}, b.requires.packages.join("; ") || "none"),
      h("dt", {}, "Needs APIs"), h("dd", {}, b.requires.apis.join("; ") || "none"),
      h("dt", {}, "Provides APIs"), h("dd", {}, b.providedApis.join("; ") || "none")),
    h("h2", {}, "Channels"),
    table(["Channel", "Replaces", "Skips", "skipRange"], channels),
    h("div", { class: "actions" }, link(`#/resolve?require=${encodeURIComponent(`${pkg}@${b.version}`)}`, `Resolve ${pkg} ${b.version}`)),
    h("h2", {}, `Properties (${b.properties.length})`),
    b.properties.map((p) => h("details", {}, h("summary", {}, p.type),
      h("pre", {}, JSON.stringify(p.value, null, 2).slice(0, 20000)))),
  ];
}
