// Calls to /api/v1: JSON in, JSON out; a problem+json answer becomes an ApiError.
const TOKEN_KEY = "deppy-token";

export class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.problem = problem;
  }
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

export function setToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

async function answer(response) {
  const type = response.headers.get("content-type") || "";
  if (response.ok) return type.includes("json") ? response.json() : response.text();
  let problem = { status: response.status, detail: response.statusText };
  if (type.includes("json")) problem = await response.json();
  if (response.status === 401) document.getElementById("token-bar").hidden = false;
  throw new ApiError(problem);
}

export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of [].concat(value)) if (one !== undefined && one !== "") query.append(key, one);
  }
  const url = `/api/v1${path}${query.toString() ? `?${query}` : ""}`;
  return answer(await fetch(url, { headers: headers() }));
}

export async function post(path, body) {
  const response = await fetch(`/api/v1${path}`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });
  return answer(response);
}

// A YAML document as it was written (a ClusterExtension pasted on the resolve page).
export async function postText(path, text, type = "application/yaml") {
  const response = await fetch(`/api/v1${path}`, {
    method: "POST",
    headers: headers({ "Content-Type": type }),
    body: text,
  });
  return answer(response);
}
