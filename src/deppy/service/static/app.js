// The web UI: a hash router over the views (browse, resolve, upgrades, catalogs).
import { setToken } from "./api.js";
import { h, problemBox } from "./dom.js";
import { bundlePage, home, packagePage, searchPage } from "./browse.js";
import { catalogsPage, checkPage } from "./catalogs.js";
import { resolvePage } from "./resolve.js";
import { upgradesPage } from "./upgrades.js";

const view = document.getElementById("view");

const routes = [
  [/^\/?$/, () => home(), "browse"],
  [/^\/search$/, (m, q) => searchPage(q.get("q") || ""), "browse"],
  [/^\/package\/([^/]+)$/, (m, q) => packagePage(decodeURIComponent(m[1]), q), "browse"],
  [/^\/bundle\/([^/]+)\/([^/]+)\/([^/]+)$/, (m) => bundlePage(...m.slice(1, 4).map(decodeURIComponent)), "browse"],
  [/^\/resolve$/, (m, q) => resolvePage(q), "resolve"],
  [/^\/upgrades$/, (m, q) => upgradesPage(q), "upgrades"],
  [/^\/catalogs$/, () => catalogsPage(), "catalogs"],
  [/^\/check\/([^/]+)$/, (m, q) => checkPage(decodeURIComponent(m[1]), q), "catalogs"],
];

async function render() {
  const [path, search] = (location.hash.replace(/^#/, "") || "/").split("?");
  const query = new URLSearchParams(search || "");
  for (const [pattern, page, section] of routes) {
    const match = path.match(pattern);
    if (!match) continue;
    for (const a of document.querySelectorAll("[data-nav]")) {
      if (a.dataset.nav === section) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    view.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    let content;
    try {
      content = await page(match, query);
    } catch (error) {
      content = [h("h1", { tabindex: "-1" }, "Something went wrong"), problemBox(error)];
    }
    view.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
    const heading = view.querySelector("h1");
    const target = view.querySelector("[data-focus]") || heading;
    if (heading) document.title = `${heading.textContent} · deppy`;
    if (target) {
      // Focus for keyboard and screen-reader users without scrolling: a page opens at its top,
      // the bar with the search box in view; only a part further down (an answer) is scrolled to.
      target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
      if (target === heading) window.scrollTo(0, 0);
      else target.scrollIntoView({ block: "start" });
    }
    return;
  }
  view.replaceChildren(h("h1", { tabindex: "-1" }, "Not found"), h("p", {}, h("a", { href: "#/" }, "Start over")));
}

document.getElementById("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const q = document.getElementById("search-box").value.trim();
  if (q) location.hash = `#/search?q=${encodeURIComponent(q)}`;
});
document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  setToken(document.getElementById("token-box").value.trim());
  document.getElementById("token-bar").hidden = true;
  render();
});
window.addEventListener("hashchange", render);
render();
