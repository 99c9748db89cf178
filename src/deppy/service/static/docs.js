// Interactive API docs from /openapi.json: each operation with its parameters, a body to edit
// and a button that sends the request and shows the answer. Nothing is loaded from elsewhere.
import { h, table } from "./dom.js";

const view = document.getElementById("view");

function resolveRef(spec, node) {
  if (node && node.$ref) return node.$ref.split("/").slice(1).reduce((o, k) => o[k], spec);
  return node;
}

function operation(spec, path, method, op) {
  const params = (op.parameters || []).map((p) => resolveRef(spec, p));
  const inputs = {};
  const rows = params.map((p) => {
    const id = `${op.operationId}-${p.in}-${p.name}`;
    inputs[p.name] = h("input", { id, "aria-label": `${p.name} (${p.in})` });
    return [h("label", { for: id }, h("code", {}, p.name)), p.in, p.required ? "yes" : "no", p.description || "", inputs[p.name]];
  });
  const content = op.requestBody?.content || {};
  const type = Object.keys(content)[0];
  const example = type && content[type].example ? JSON.stringify(content[type].example, null, 2) : "";
  const bodyBox = type && type.includes("json")
    ? h("textarea", { rows: "10", style: "width:100%", "aria-label": "Request body (JSON)" }, example) : null;
  const output = h("pre", { "aria-live": "polite" });
  const send = async () => {
    let url = path;
    const query = new URLSearchParams();
    for (const p of params) {
      const value = inputs[p.name].value;
      if (!value) continue;
      if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === "query") for (const one of value.split("\n")) query.append(p.name, one);
    }
    const init = { method: method.toUpperCase(), headers: {} };
    const token = sessionStorage.getItem("deppy-token");
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (bodyBox) { init.body = bodyBox.value; init.headers["Content-Type"] = type; }
    output.textContent = "…";
    const response = await fetch(`${url}${query.toString() ? `?${query}` : ""}`, init);
    const text = await response.text();
    output.textContent = `${response.status} ${response.headers.get("content-type") || ""}\n\n${text.slice(0, 20000)}`;
  };
  return h("details", { class: "card", style: "margin:.5em 0" },
    h("summary", {}, h("strong", {}, method.toUpperCase()), " ", h("code", {}, path), " — ", op.summary || ""),
    op.description ? h("p", {}, op.description) : null,
    rows.length ? table(["Parameter", "In", "Required", "About", "Value"], rows) : null,
    type ? h("p", {}, `Body: ${type}${type.includes("json") ? "" : " (send it with curl)"}`) : null,
    bodyBox,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: send, disabled: type && !bodyBox ? true : undefined }, "Send")),
    output);
}

async function main() {
  const spec = await (await fetch("/openapi.json")).json();
  const groups = {};
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const group = (op.tags || ["other"])[0];
      (groups[group] ||= []).push(operation(spec, path, method, op));
    }
  }
  view.replaceChildren(
    h("h1", {}, `${spec.info.title} API ${spec.info.version}`),
    h("p", {}, spec.info.description || ""),
    Object.entries(groups).map(([group, ops]) => [h("h2", {}, group), ops]));
}

main().catch((error) => view.replaceChildren(h("p", { class: "problem" }, String(error))));
