// Updates of installed bundles: in their channel, and only by switching channel.
import { get } from "./api.js";
import { bundleHref, h, link, pkgHref, problemBox, table, tag } from "./dom.js";

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
  const parts = [h("h1", {}, "Upgrades"), form];
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
