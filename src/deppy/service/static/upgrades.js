// Updates of installed bundles: in their channel, and only by switching channel. OLM v1 mode:
// installed ClusterExtensions pasted as YAML, and where OLM v1 moves each under its policy.
import { get, post, postText } from "./api.js";
import { bundleHref, h, link, pkgHref, problemBox, table, tag } from "./dom.js";
import { OLMV1_CHANGES } from "./resolve.js";

function channelBlock(report, found, title) {
  const newest = found.newest;
  return h("div", { class: "card" },
    h("strong", {}, title), ` (catalog ${found.catalog})`,
    h("div", {}, "Updates: ", found.updates.map((u, i) => [i ? ", " : "",
      link(bundleHref(found.catalog, report.package, u.bundle), u.bundle),
      u.blocked ? tag("cannot run here", "bad") : null])),
    newest ? h("div", {}, `Newest ${newest} in ${found.path.length - 1} step(s): ${found.path.join(" → ")}`)
      : h("div", {}, tag("none runs on this cluster", "bad")),
    found.blockedSteps.length ? h("div", {}, "The path passes through versions this cluster cannot run: ", found.blockedSteps.join(", ")) : null);
}

export async function upgradesPage(query) {
  const specs = query.getAll("installed").filter(Boolean);
  const ocp = query.get("ocpVersion") || "";
  const kube = query.get("kubeVersion") || "";
  const box = h("textarea", { id: "installed-specs", rows: "4", style: "width:100%" }, specs.join("\n"));
  const ocpBox = h("input", { id: "up-ocp", value: ocp, placeholder: "4.18" });
  const kubeBox = h("input", { id: "up-kube", value: kube, placeholder: "1.31.0" });
  const form = h("form", { onsubmit: (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const line of box.value.split("\n").map((l) => l.trim()).filter(Boolean)) q.append("installed", line);
    if (ocpBox.value.trim()) q.set("ocpVersion", ocpBox.value.trim());
    if (kubeBox.value.trim()) q.set("kubeVersion", kubeBox.value.trim());
    location.hash = `#/upgrades?${q}`;
  } },
    h("label", { for: "installed-specs" }, "Installed bundles, one per line: PACKAGE@VERSION[,channel=C][,catalog=NAME]"),
    box,
    h("div", { class: "row" },
      h("label", { for: "up-ocp" }, "OpenShift version", ocpBox),
      h("label", { for: "up-kube" }, "Kubernetes version", kubeBox)),
    h("div", { class: "actions" }, h("button", { type: "submit", id: "upgrades-button" }, "Show updates")));
  const extensions = query.get("clusterExtensions") || "";
  const parts = [h("h1", {}, "Upgrades"), form, extensionForm(extensions)];
  if (extensions) parts.push(...(await extensionReports(extensions)));
  if (!specs.length) return parts;
  try {
    const reports = await get("/upgrades", { installed: specs, ocpVersion: ocp, kubeVersion: kube });
    for (const r of reports) {
      parts.push(h("h2", {}, link(pkgHref(r.package), r.package), ` ${r.installed} (${r.bundle})`));
      if (!r.inCatalog) parts.push(h("p", {}, tag("not in any catalog", "bad"), " only bundles whose edges name it can follow"));
      if (r.channel && r.channel.updates.length) parts.push(channelBlock(r, r.channel, `In channel ${r.channel.channel}`));
      else parts.push(h("p", {}, tag("up to date", "good"), " in its channel"));
      if (r.crossChannelUpdateFound) {
        parts.push(h("h3", {}, "Only by switching channel"));
        parts.push(h("div", { class: "cards" }, r.otherChannels.map((c) => channelBlock(r, c, `Channel ${c.channel}`))));
      }
    }
    if (!reports.length) parts.push(table(["Result"], [["nothing installed"]]));
  } catch (error) {
    parts.push(problemBox(error));
  }
  return parts;
}

// OLM v1: ClusterExtensions as `kubectl get clusterextensions -o yaml` gives them (with
// status.install.bundle), and ClusterCatalogs if their priority or availability matter.
function extensionForm(text) {
  const area = h("textarea", { id: "installed-extensions", rows: 10, style: "width:100%", spellcheck: "false",
    "aria-label": "Installed ClusterExtension YAML" }, text);
  return h("details", { id: "olmv1-upgrades", open: Boolean(text) },
    h("summary", {}, "Or paste installed ClusterExtensions (OLM v1)"),
    h("form", { onsubmit: (e) => {
      e.preventDefault();
      location.hash = `#/upgrades?${new URLSearchParams({ clusterExtensions: area.value })}`;
    } },
      area,
      h("div", { class: "actions" }, h("button", { type: "submit", id: "extension-upgrades-button" }, "Show where OLM v1 moves them"))));
}

async function extensionReports(text) {
  const parts = [h("h2", { "data-focus": true, id: "extension-upgrades" }, "ClusterExtensions")];
  try {
    const reports = await postText("/upgrades", text);
    if (!reports.length) parts.push(h("p", {}, "No ClusterExtension has an installed bundle (status.install.bundle)."));
    for (const r of reports) {
      const card = h("div", { class: "card extension-upgrade" },
        h("h3", {}, `ClusterExtension ${r.extension}: `, link(pkgHref(r.package), r.package), ` ${r.installed.version}`),
        h("div", {}, `Installed ${r.installed.name}; upgradeConstraintPolicy ${r.policy}`));
      if (r.error) {
        card.append(h("div", {}, tag("OLM v1 finds no bundle", "bad"), ` ${r.error}`));
        if (r.suggestions.length) card.append(waysOut(text, r.suggestions));
      }
      else if (!r.next) card.append(h("div", {}, tag("up to date", "good"), " OLM v1 keeps it"));
      else {
        card.append(h("div", {}, "Next: ", link(bundleHref(r.next.catalog, r.package, r.next.name), r.next.version),
          ` (${r.next.name}, catalog ${r.next.catalog})`));
        const steps = r.path.length;
        card.append(h("div", {}, `Path: ${[r.installed.version, ...r.path.map((b) => b.version)].join(" → ")} `,
          `(${steps} reconciliation${steps === 1 ? "" : "s"})`));
      }
      parts.push(card);
    }
  } catch (error) {
    parts.push(problemBox(error));
  }
  return parts;
}

// The ways out `deppy resolve` offers where OLM v1 finds no bundle, each a button that edits the
// pasted objects (the service makes the edit) and shows the upgrades again.
function waysOut(text, suggestions) {
  return h("div", { class: "ways-out" }, h("strong", {}, "What would make it work"),
    h("ul", { class: "suggestions" }, suggestions.map((s) => {
      const item = h("li", {}, s.text);
      if (OLMV1_CHANGES.has(s.change.kind)) {
        item.append(h("button", { type: "button", class: "small suggestion", "data-kind": s.change.kind,
          onclick: () => tryChange(text, s.change, item) }, "Try this"));
      }
      return item;
    })));
}

async function tryChange(text, change, item) {
  try {
    const edited = await post("/olmv1/changed", { objects: text, change });
    location.hash = `#/upgrades?${new URLSearchParams({ clusterExtensions: edited.objects })}`;
  } catch (error) {
    item.append(problemBox(error));
  }
}
