// @ts-check
/* global document -- a browser page outside the TypeScript project of the app */
/**
 * The API reference page (GET /api/docs serves api-docs.html, which loads this file). A navigation carries no
 * credentials, so the page reads the session token the PWA keeps in this origin's localStorage (key `token`, see
 * pwa/src/app/auth/session-keys.ts) and fetches the OpenAPI document with it; the server answers it to admins only.
 * A plain file of pwa/public: the app's chunks (its startup among them) never load here.
 */

/** The session token's localStorage key (sessionKeys.token of the app). */
const tokenKey = 'token';
const httpMethods = ["get", "post", "put", "patch", "delete"];
/** Text with `code` spans as text and code elements. */
const withCode = (text) =>
  text.split("`").map((part, index) => (index % 2 === 1 ? element("code", undefined, part) : part));

/** A new element with a class and text or children. */
function element(tag, className, ...content) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...content);
  return node;
}
/** `get /api/tasks/{id}` as an id a link can point at. */
const anchorOf = (method, path) => `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-").replace(/-+$/, "").toLowerCase();
const accessOf = (operation) => {
  const schemes = (operation.security ?? []).flatMap(Object.keys);
  if (schemes.includes("metricsToken")) return "Bearer METRICS_TOKEN";
  return schemes.includes("bearerAuth") ? "Signed in (bearer token)" : "Public";
};
const schemaBlock = (label, schema) => {
  const details = element("details", "schema");
  details.append(element("summary", void 0, label), element("pre", void 0, JSON.stringify(schema, null, 2)));
  return details;
};
function parameterList(parameters) {
  const list = element("ul", "parameters");
  for (const parameter of parameters) {
    const type = parameter.schema?.type;
    list.append(
      element(
        "li",
        void 0,
        element("code", void 0, parameter.name),
        ` (${parameter.in}${type ? `, ${type}` : ""}${parameter.required ? ", required" : ""})`,
        ...parameter.description ? [`: ${parameter.description}`] : []
      )
    );
  }
  return list;
}
function answerList(responses) {
  const list = element("dl", "answers");
  // Success first, then the refusals by status.
  const answers = Object.entries(responses).sort(([a], [b]) => Number(!a.startsWith("2")) - Number(!b.startsWith("2")));
  for (const [status, { description = "" }] of answers) {
    const lines = description.split("\n").map((line) => {
      const [code, ...message] = line.split(": ");
      return message.length > 0 ? element("span", "refusal", element("code", void 0, code ?? ""), `: ${message.join(": ")}`) : element("span", void 0, line);
    });
    list.append(
      element("dt", status.startsWith("2") ? "success" : "failure", status),
      element("dd", void 0, ...lines)
    );
  }
  return list;
}
function operationSection(method, path, operation) {
  const section = element("section", "operation");
  section.id = anchorOf(method, path);
  const heading = element(
    "h3",
    void 0,
    element("span", `method method-${method}`, method.toUpperCase()),
    " ",
    element("code", "path", path)
  );
  section.append(heading, element("p", "summary", ...withCode(operation.summary ?? "")));
  section.append(element("p", "access", `Access: ${accessOf(operation)}`));
  if (operation.parameters?.length)
    section.append(element("h4", void 0, "Parameters"), parameterList(operation.parameters));
  const body = operation.requestBody?.content;
  if (body)
    for (const [type, { schema }] of Object.entries(body))
      section.append(schemaBlock(`Request body (${type})`, schema));
  if (operation.responses) section.append(element("h4", void 0, "Answers"), answerList(operation.responses));
  return section;
}
/** Renders the document: a table of contents by group, then each group's operations. */
function renderReference(main, openApi) {
  const operations = Object.entries(openApi.paths).flatMap(
    ([path, byMethod]) => httpMethods.flatMap((method) => {
      const operation = byMethod[method];
      return operation ? [{ method, path, operation }] : [];
    })
  );
  const groups = (openApi.tags ?? []).map((tag) => ({
    ...tag,
    operations: operations.filter(({ operation }) => operation.tags?.includes(tag.name))
  }));
  const header = element(
    "header",
    "intro",
    element("h1", void 0, openApi.info.title),
    element(
      "p",
      "version",
      `Protocol version ${openApi.info.version} \xB7 `,
      linkTo("/api/openapi.json", "OpenAPI document (JSON)")
    ),
    element("p", void 0, openApi.info.description ?? "")
  );
  const contents = element("nav", "contents");
  contents.setAttribute("aria-label", "Groups");
  const contentList = element("ul");
  for (const group of groups)
    if (group.operations.length > 0)
      contentList.append(element("li", void 0, linkTo(`#${anchorOf("group", group.name)}`, group.name)));
  contents.append(element("h2", void 0, "Groups"), contentList);
  const sections = groups.filter((group) => group.operations.length > 0).map((group) => {
    const section = element("section", "group");
    section.id = anchorOf("group", group.name);
    section.setAttribute("aria-labelledby", `${section.id}-heading`);
    const heading = element("h2", void 0, group.name);
    heading.id = `${section.id}-heading`;
    section.append(heading, element("p", "group-description", group.description ?? ""));
    for (const { method, path, operation } of group.operations)
      section.append(operationSection(method, path, operation));
    return section;
  });
  main.replaceChildren(header, contents, ...sections);
}
function linkTo(href, text) {
  const anchor = element("a", void 0, text);
  anchor.href = href;
  return anchor;
}

const main = document.getElementById("reference");
function showProblem(text, link) {
  const status = main.querySelector(".status") ?? main.appendChild(document.createElement("p"));
  status.className = "status problem";
  status.textContent = text;
  if (link) {
    const anchor = document.createElement("a");
    anchor.href = link.href;
    anchor.textContent = link.label;
    status.append(" ", anchor);
  }
  main.removeAttribute("aria-busy");
}
const signIn = { href: "/login", label: "Sign in" };
async function load() {
  const token = localStorage.getItem(tokenKey);
  if (!token) return showProblem("Sign in to the workspace as an admin to read the API reference.", signIn);
  let answer;
  try {
    answer = await fetch("/api/openapi.json", {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(15e3)
    });
  } catch {
    return showProblem("Could not reach the server. Check your connection and reload the page.");
  }
  if (answer.status === 401) return showProblem("Your session has ended. Sign in again as an admin.", signIn);
  if (answer.status === 403)
    return showProblem("Only admins can read the API reference.", { href: "/", label: "Back to the workspace" });
  if (!answer.ok) return showProblem("The API reference could not be loaded. Please try again shortly.");
  renderReference(main, await answer.json());
  main.removeAttribute("aria-busy");
}
void load();
