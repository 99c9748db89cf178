// The resolve page: a form (required, installed, cluster, catalogs, exclusions) → the selection
// in install order and who brought in whom; or, with no answer, the explanation with each
// suggestion that changes the request as a button that re-runs it with that change.
import { get, post, postText } from "./api.js";
import { bundleHref, h, link, pkgHref, problemBox, svg, table } from "./dom.js";

const FIELDS = {
  required: [["name", "Package"], ["versionRange", "Version range"], ["channel", "Channel"]],
  installed: [["name", "Package"], ["version", "Version"], ["channel", "Channel"]],
  exclude: [["type", "Property type"], ["value", "Value"]],
};
const APPLICABLE = new Set(["replace-requirement", "drop-requirement", "drop-installed", "lift-exclusion", "set-cluster", "add-source"]);
// OLM v1 ways out edit the pasted objects; the service makes the edit (it reads YAML).
export const OLMV1_CHANGES = new Set(["change-extension", "new-extension", "change-catalog"]);

async function tryOlmv1Change(state, change, item) {
  try {
    const edited = await post("/olmv1/changed", { objects: state.clusterExtension, change });
    go({ ...state, clusterExtension: edited.objects });
  } catch (error) {
    item.append(problemBox(error));
  }
}

// The request as the form holds it; the hash keeps it, so a result can be linked and reloaded.
function fromQuery(query) {
  const saved = query.get("r");
  if (saved) {
    try { return normalised(JSON.parse(saved)); } catch { /* a hand-edited link: start from the rest */ }
  }
  const state = { required: [], installed: [], exclude: [], cluster: {}, sources: [] };
  for (const spec of query.getAll("require")) {
    const [name, versionRange = ""] = spec.split("@");
    state.required.push({ name, versionRange, channel: "" });
  }
  for (const spec of query.getAll("installed")) {
    const [name, version = ""] = spec.split("@");
    state.installed.push({ name, version, channel: "" });
  }
  if (!state.required.length && !state.installed.length) state.required.push({ name: "", versionRange: "", channel: "" });
  return state;
}

// A saved request as the form needs it, whatever a link carries: lists of rows of text (a
// link written by hand or by another tool may leave any of them out, or hold something else).
function normalised(saved) {
  const given = saved && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
  const rows = (kind) => (Array.isArray(given[kind]) ? given[kind] : [])
    .filter((row) => row && typeof row === "object" && !Array.isArray(row))
    .map((row) => Object.fromEntries(FIELDS[kind].map(([key]) => [key, typeof row[key] === "string" ? row[key] : ""])));
  const cluster = given.cluster && typeof given.cluster === "object" && !Array.isArray(given.cluster) ? given.cluster : {};
  const state = {
    required: rows("required"),
    installed: rows("installed"),
    exclude: rows("exclude"),
    cluster: Object.fromEntries(["openshiftVersion", "kubernetesVersion"]
      .filter((key) => typeof cluster[key] === "string").map((key) => [key, cluster[key]])),
    sources: (Array.isArray(given.sources) ? given.sources : []).filter((s) => typeof s === "string"),
  };
  if (RULES.some(([name]) => name === given.rules)) state.rules = given.rules;
  if (typeof given.clusterExtension === "string") state.clusterExtension = given.clusterExtension;
  if (!state.required.length && !state.installed.length && !state.clusterExtension) {
    state.required.push({ name: "", versionRange: "", channel: "" });
  }
  return state;
}

function clean(row) {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== "" && v !== undefined && v !== null));
}

export function activeResolution(state) {
  const constraints = [
    ...state.required.map((r) => ({ required: clean(r) })),
    ...state.installed.map((i) => ({ installed: clean(i) })),
  ];
  const spec = { constraints };
  const cluster = clean(state.cluster || {});
  if (Object.keys(cluster).length) spec.cluster = cluster;
  if (state.sources?.length) spec.sources = state.sources;
  if (state.exclude?.length) spec.exclude = state.exclude.map(clean);
  if (state.rules && state.rules !== "deppy") spec.rules = state.rules;
  return { apiVersion: "deppy.io/v1alpha1", kind: "ActiveResolution", spec };
}

// A suggestion's change applied to the request (indices count the required, installed and
// exclude lists in order, as the resolver numbered them).
export function applyChange(state, change) {
  const next = structuredClone(state);
  if (change.kind === "replace-requirement") {
    const r = change.requirement || {};
    next.required[change.index] = { name: r.name || "", versionRange: r.versionRange || "", channel: r.channel || "" };
  } else if (change.kind === "add-source") {
    next.sources = [...(next.sources || []), change.source];
  } else if (change.kind === "drop-requirement") {
    next.required.splice(change.index, 1);
  } else if (change.kind === "drop-installed") {
    next.installed.splice(change.index, 1);
  } else if (change.kind === "lift-exclusion") {
    next.exclude.splice(change.index, 1);
  } else if (change.kind === "set-cluster") {
    next.cluster = { ...next.cluster };
    if ("openshiftVersion" in change) next.cluster.openshiftVersion = change.openshiftVersion || "";
    if ("kubernetesVersion" in change) next.cluster.kubernetesVersion = change.kubernetesVersion || "";
  }
  return next;
}

function go(state) {
  const target = `#/resolve?r=${encodeURIComponent(JSON.stringify(state))}`;
  if (location.hash === target) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = target;
}

function rowsEditor(state, kind, title, addText) {
  const box = h("fieldset", { id: `${kind}-rows` }, h("legend", {}, title));
  state[kind].forEach((row, n) => {
    const line = h("div", { class: "row" });
    for (const [key, label] of FIELDS[kind]) {
      const id = `${kind}-${n}-${key}`;
      line.append(h("label", { for: id }, `${label}`,
        h("input", { id, name: id, value: row[key] || "", oninput: (e) => { row[key] = e.target.value; } })));
    }
    line.append(h("button", { type: "button", class: "plain small", "aria-label": `Remove ${title.toLowerCase()} ${n + 1}`,
      onclick: () => { state[kind].splice(n, 1); box.replaceWith(rowsEditor(state, kind, title, addText)); } }, "Remove"));
    box.append(line);
  });
  box.append(h("button", { type: "button", class: "plain small", id: `add-${kind}`, onclick: () => {
    state[kind].push(Object.fromEntries(FIELDS[kind].map(([k]) => [k, ""])));
    const fresh = rowsEditor(state, kind, title, addText);
    box.replaceWith(fresh);
    fresh.querySelector(`#${kind}-${state[kind].length - 1}-${FIELDS[kind][0][0]}`).focus();
  } }, addText));
  return box;
}

// The rule sets a request may choose (spec.rules): whose answer the page shows.
const RULES = [["deppy", "deppy's own rules"], ["olm-v0", "OLM v0's resolver (what OLM v0 would do)"]];

function rulesBox(state) {
  return h("fieldset", {}, h("legend", {}, "Rules"),
    h("label", { for: "rules" }, "Resolve under ",
      h("select", { id: "rules", name: "rules", onchange: (e) => { state.rules = e.target.value; } },
        RULES.map(([name, text]) => h("option", { value: name, selected: (state.rules || "deppy") === name }, text)))));
}

function form(state, catalogs) {
  const cluster = state.cluster || (state.cluster = {});
  const clusterBox = h("fieldset", {}, h("legend", {}, "Cluster"),
    h("div", { class: "row" },
      h("label", { for: "ocp" }, "OpenShift version", h("input", { id: "ocp", value: cluster.openshiftVersion || "", placeholder: "4.18", oninput: (e) => { cluster.openshiftVersion = e.target.value; } })),
      h("label", { for: "kube" }, "Kubernetes version", h("input", { id: "kube", value: cluster.kubernetesVersion || "", placeholder: "1.31.0", oninput: (e) => { cluster.kubernetesVersion = e.target.value; } }))));
  const sources = h("fieldset", {}, h("legend", {}, "Catalogs (none ticked: all)"),
    catalogs.map((c) => h("label", { style: "margin-right:1em" },
      h("input", { type: "checkbox", value: c.name, checked: state.sources?.includes(c.name),
        onchange: (e) => {
          state.sources = (state.sources || []).filter((s) => s !== c.name);
          if (e.target.checked) state.sources.push(c.name);
        } }), ` ${c.name}`)));
  return [h("form", { id: "resolve-form", onsubmit: (e) => { e.preventDefault(); go({ ...state, clusterExtension: undefined }); } },
    rowsEditor(state, "required", "Required packages", "Add a requirement"),
    rowsEditor(state, "installed", "Installed bundles", "Add an installed bundle"),
    clusterBox, sources,
    rowsEditor(state, "exclude", "Exclusions", "Add an exclusion"),
    rulesBox(state),
    h("div", { class: "actions" }, h("button", { type: "submit", id: "resolve-button" }, "Resolve"))),
    clusterExtensionForm(state)];
}

// OLM v1: ClusterExtension (and ClusterCatalog) YAML as you would kubectl apply it, resolved by
// OLM v1's rules on the loaded catalogs.
function clusterExtensionForm(state) {
  const area = h("textarea", { id: "clusterextension", rows: 14, cols: 80, spellcheck: "false",
    "aria-label": "ClusterExtension YAML", placeholder: "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\n..." },
    state.clusterExtension || "");
  return h("details", { id: "olmv1", open: Boolean(state.clusterExtension) },
    h("summary", {}, "Or paste ClusterExtension YAML (OLM v1)"),
    h("form", { id: "clusterextension-form", onsubmit: (e) => { e.preventDefault(); go({ ...fromQuery(new URLSearchParams()), clusterExtension: area.value }); } },
      area,
      h("div", { class: "actions" }, h("button", { type: "submit", id: "clusterextension-button" }, "Resolve ClusterExtension"))));
}

function selectionView(data) {
  const rows = data.resolution.selection.map((s, n) => [
    String(n + 1), link(pkgHref(s.package), s.package), link(bundleHref(s.catalog, s.package, s.bundle), s.version),
    s.channel || "—", s.catalog, s.action === "upgrade" || s.action === "downgrade" ? `${s.action} from ${s.from} via ${s.path.join(" → ")}` : s.action,
    s.reasons.join("; "),
  ]);
  return [
    h("div", { class: "ok", role: "status" }, h("strong", {}, "Resolved: "),
      `${rows.length} bundle${rows.length === 1 ? "" : "s"}, in install order`,
      h("span", { id: "rules-used" }, ` (rules: ${data.resolution.rules || "deppy"}).`)),
    h("div", { id: "selection" }, table(["#", "Package", "Version", "Channel", "Catalog", "Action", "Why"], rows)),
    h("h2", {}, "Who brought in whom"),
    h("p", { class: "muted" }, "Each arrow goes from whoever needed a bundle to the bundle, labelled with what was needed."),
    svg(data.svg, "Resolution graph"),
  ];
}

// OLM v1: whether OLM v1 installs each ClusterExtension of the plan as written (it refuses a
// bundle that declares a dependency), and the plan itself as YAML to kubectl apply.
function olmv1View(olmv1, text) {
  const rows = olmv1.extensions.map((e) => [
    e.name, e.package, e.version, e.catalog, e.requiredBy || "—",
    e.installsAsWritten ? "yes" : h("span", { class: "refused" }, `no: ${e.refusal.message}`),
  ]);
  const plan = h("pre", { id: "olmv1-plan", hidden: true });
  const button = h("button", { type: "button", class: "small", id: "olmv1-plan-button", onclick: async () => {
    try {
      plan.textContent = await postText("/resolve/clusterextensions", text);
    } catch (error) {
      plan.textContent = `${error.message}`;
    }
    plan.hidden = false;
  } }, "Show the ClusterExtension plan");
  return h("section", { id: "olmv1-verdict" },
    h("h2", {}, "What OLM v1 does with the plan"),
    h("p", { role: "status", class: olmv1.installsAsWritten ? "ok" : "warning" },
      olmv1.installsAsWritten ? "OLM v1 installs every ClusterExtension of this plan as written."
        : `OLM v1 refuses part of this plan as written. Way out: ${olmv1.wayOut}`),
    h("div", { id: "olmv1-extensions" }, table(["ClusterExtension", "Package", "Version", "Catalog", "Needed by", "OLM v1 installs it"], rows)),
    h("div", { class: "actions" }, button), plan);
}

function explanationView(state, explanation) {
  const list = (items, render = (x) => x) => h("ul", {}, items.map((x) => h("li", {}, render(x))));
  const suggestions = explanation.suggestions.map((s) => {
    const text = typeof s === "string" ? s : s.text;
    const change = typeof s === "string" ? null : s.change;
    const item = h("li", {}, text);
    const olmv1 = change && state.clusterExtension && OLMV1_CHANGES.has(change.kind);
    if (change && (APPLICABLE.has(change.kind) || olmv1)) {
      item.append(h("button", { type: "button", class: "small suggestion", "data-kind": change.kind,
        onclick: () => (olmv1 ? tryOlmv1Change(state, change, item) : go(applyChange(state, change))) }, "Try this"));
    }
    return item;
  });
  return h("section", { class: "explanation", id: "explanation" },
    h("h2", {}, explanation.summary),
    explanation.roots.length ? [h("h3", {}, "Requested"), list(explanation.roots)] : null,
    explanation.causes.length ? [h("h3", {}, "Why it cannot be done"), list(explanation.causes, (c) => c.text)] : null,
    explanation.also.length ? [h("h3", {}, "Also in the way once that is fixed"), list(explanation.also, (c) => c.text)] : null,
    suggestions.length ? [h("h3", {}, "What would make it work"), h("ul", { class: "suggestions" }, suggestions)] : null);
}

export async function resolvePage(query) {
  const state = fromQuery(query);
  const listing = await get("/catalogs");
  const parts = [h("h1", {}, "Resolve"), ...form(state, listing.catalogs)];
  const asked = query.get("r") && (state.clusterExtension || state.required.some((r) => r.name) || state.installed.some((i) => i.name));
  if (!asked) return parts;
  const result = h("div", { id: "result" });
  try {
    const data = state.clusterExtension
      ? await postText("/resolve/graph", state.clusterExtension)
      : await post("/resolve/graph", activeResolution(state));
    for (const warning of data.resolution.warnings) result.append(h("p", { class: "muted" }, `Warning: ${warning}`));
    if (!data.resolution.resolved) result.append(h("p", { class: "muted", id: "rules-used" }, `Rules: ${data.resolution.rules || "deppy"}.`));
    if (data.resolution.resolved) result.append(...selectionView(data));
    if (data.resolution.resolved && data.resolution.olmv1) result.append(olmv1View(data.resolution.olmv1, state.clusterExtension));
    else result.append(explanationView(state, data.resolution.explanation));
  } catch (error) {
    result.append(problemBox(error));
  }
  parts.push(h("h2", { "data-focus": true, id: "answer" }, "Answer"), result);
  return parts;
}
