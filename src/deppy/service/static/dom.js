// Small helpers to build the page: h() makes an element (text children are escaped by the DOM).
import { ApiError } from "./api.js";
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function table(header, rows) {
  return h("div", { class: "scroll" },
    h("table", {},
      h("thead", {}, h("tr", {}, header.map((cell) => h("th", { scope: "col" }, cell)))),
      h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cell)))))));
}

export function tag(text, kind = text) {
  return h("span", { class: `tag ${kind}` }, text);
}

// An SVG made by the service (its text is escaped there) shown inline, so its links work.
export function svg(text, label) {
  const box = h("div", { class: "graph", role: "group", "aria-label": label });
  box.innerHTML = text;
  return box;
}

// A package's description as the service rendered it from Markdown (raw HTML written out as
// text, links to http(s) only, nothing that runs), in a box that scrolls when it is long.
export function description(html) {
  const box = h("div", { class: "description", role: "region", "aria-label": "Description", tabindex: "0" });
  box.innerHTML = html;
  return box;
}

export function link(href, text) {
  return h("a", { href }, text);
}

export function pkgHref(name) {
  return `#/package/${encodeURIComponent(name)}`;
}

export function bundleHref(catalog, pkg, bundle) {
  return `#/bundle/${encodeURIComponent(catalog)}/${encodeURIComponent(pkg)}/${encodeURIComponent(bundle)}`;
}

export function problemBox(error) {
  const problem = error instanceof ApiError ? error.problem : { detail: String(error) };
  return h("div", { class: "problem", role: "alert" },
    h("strong", {}, problem.title || "Error"), " ",
    problem.field ? h("code", {}, problem.field) : null, problem.field ? ": " : "",
    problem.detail || "", problem.fix ? h("div", { class: "muted" }, problem.fix) : null);
}
