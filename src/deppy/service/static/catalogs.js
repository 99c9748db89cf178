// The loaded catalogs and the catalog check: bundles that cannot be installed alone, by reason.
import { get } from "./api.js";
import { bundleHref, h, link, pkgHref, table } from "./dom.js";

export async function catalogsPage() {
  const listing = await get("/catalogs");
  const rows = listing.catalogs.map((c) => [
    c.name, String(c.priority), String(c.packages), String(c.bundles), String(c.problems),
    link(`#/check/${encodeURIComponent(c.name)}`, "check"),
  ]);
  return [
    h("h1", {}, "Catalogs"),
    h("p", { class: "muted" }, `From ${listing.origin}; generation ${listing.generation}, loaded ${listing.loadedAt}.`),
    listing.empty ? h("p", { role: "status" }, listing.empty) : table(["Name", "Priority", "Packages", "Bundles", "Skipped objects", "Check"], rows),
  ];
}

export async function checkPage(name, query) {
  const params = { ocpVersion: query.get("ocpVersion") || "", kubeVersion: query.get("kubeVersion") || "" };
  const report = await get(`/catalogs/${encodeURIComponent(name)}/check`, params);
  const groups = Object.entries(report.byReason).map(([reason, count]) => {
    const failures = report.failures.filter((f) => f.reasons.includes(reason));
    const rows = failures.map((f) => [
      link(pkgHref(f.package), f.package), link(bundleHref(name, f.package, f.bundle), f.version),
      (f.unmet.length ? f.unmet : f.explanation.causes.map((c) => c.text)).join("; "),
    ]);
    return h("details", { open: count > 0 && count <= 40 ? true : undefined, class: "reason" },
      h("summary", {}, h("strong", {}, reason), ` — ${count} bundle${count === 1 ? "" : "s"}`),
      count ? table(["Package", "Version", "What it lacks"], rows) : h("p", { class: "muted" }, "none"));
  });
  const form = h("form", { class: "row", onsubmit: (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [key, id] of [["ocpVersion", "check-ocp"], ["kubeVersion", "check-kube"]]) {
      const value = document.getElementById(id).value.trim();
      if (value) q.set(key, value);
    }
    location.hash = `#/check/${encodeURIComponent(name)}?${q}`;
  } },
    h("label", { for: "check-ocp" }, "OpenShift version", h("input", { id: "check-ocp", value: params.ocpVersion })),
    h("label", { for: "check-kube" }, "Kubernetes version", h("input", { id: "check-kube", value: params.kubeVersion })),
    h("button", { type: "submit" }, "Check again"));
  return [
    h("h1", {}, `Check of catalog ${name}`),
    h("p", {}, `${report.bundles} bundles; ${report.resolved} have dependencies or cluster limits and were resolved; `,
      h("strong", {}, `${report.failing} cannot be installed on their own`), ` (${report.failingPackages} packages). `,
      "A bundle may fail for more than one reason."),
    form,
    h("h2", {}, "By reason"),
    groups,
  ];
}
