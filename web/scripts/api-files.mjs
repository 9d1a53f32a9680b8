// How gen-api.mjs cuts openapi-typescript's one long module into files of about
// 300 lines at most, each holding one idea, joined back by `extends`:
// - paths and operations by the routes' OpenAPI tag (schema/operations/<tag>.d.ts);
//   a tag still too long gets one file per operation (schema/operations/<tag>/<call>.d.ts)
//   and its tag file only joins them;
// - components' schemas by the resource whose routes use them (the tag without its
//   audience, so "my mail" and "agent mail" share schema/components/mail.d.ts); a schema
//   several resources use goes to components/shared.d.ts; a resource still too long
//   is cut again by the one call that uses a schema (components/mail_tree.d.ts)
//   where that call's schemas make 100 lines or more.
// components.d.ts joins the groups, so `components["schemas"]` still holds every schema;
// the other components the document declares (its error responses) get a file each
// (components/responses.d.ts), and a schema one of them uses counts as used by every
// operation that refers to it.

const LIMIT = 300;
export const HEADER =
  "// Generated from the gateway's OpenAPI document by `npm run gen:api`. Do not edit.\n";
const identifier = (text) => text.replace(/[^A-Za-z0-9]+/g, "_");
const lineCount = (text) => text.split("\n").length - 1;

/** The body of `export interface <name> { … }` in the generated module. */
function body(generated, name) {
  const start = generated.indexOf(`export interface ${name} {`);
  if (start < 0) throw new Error(`the generated schema has no ${name}`);
  const end = generated.indexOf("\n}\n", start);
  return generated.slice(generated.indexOf("\n", start) + 1, end + 1);
}

/**
 * The members of a block whose keys sit at `indent` spaces: each with the doc
 * comment before it, as { key, text }. Throws on a line it cannot place, so a
 * change in openapi-typescript's output fails loudly rather than losing a type.
 */
function members(block, indent) {
  const pad = " ".repeat(indent);
  const opening = new RegExp(`^${pad}("[^"]+"|[A-Za-z0-9_$]+)\\??: (.*)$`);
  const found = [];
  let pending = "";
  let open = null;
  for (const line of block.split(/(?<=\n)/)) {
    const bare = line.trimEnd();
    if (open) {
      open.text += line;
      if (bare === `${pad}};`) open = null;
      continue;
    }
    const match = opening.exec(bare);
    if (match) {
      const member = { key: match[1].replace(/^"|"$/g, ""), text: pending + line };
      found.push(member);
      pending = "";
      if (match[2] === "{") open = member;
      continue;
    }
    if (!/^\s*(\/\*\*|\*)/.test(bare)) throw new Error(`a line outside any member: ${line}`);
    pending += line;
  }
  if (open || pending) throw new Error("a member or comment left open at the end of a block");
  return found;
}

/** Per operationId: its tag, its resource (tag without "my"/"agent") and its call name. */
function operationsOf(document) {
  const found = {};
  const pathTag = {};
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== "object" || !operation.operationId) continue;
      const tagName = operation.tags?.[0] ?? "other";
      const id = operation.operationId;
      found[id] = {
        operation,
        path,
        tag: identifier(tagName),
        resource: identifier(tagName.replace(/^(my|agent) /, "")),
        // FastAPI's ids are `<function>_<path>_<method>`: the function names the call.
        call: /^(.+?)_api_v\d+_/.exec(id)?.[1] ?? identifier(id),
      };
      pathTag[path] ??= found[id];
    }
  }
  return { byId: found, byPath: pathTag };
}

const importsOf = (text, names, prefix) =>
  names
    .filter((other) => text.includes(`${other}[`))
    .map((other) => `import type { ${other} } from "${prefix}${other}";\n`)
    .join("");

/** The imports of `<name>_<part>` for each part, from `from(part)`. */
const partImports = (name, parts, from) =>
  parts.map((part) => `import type { ${name}_${part} } from "${from(part)}";\n`).join("");
/** `export interface <name> extends <name>_<part>, … {}`: the parts joined. */
const joining = (name, parts) => {
  const bases = parts.map((part) => `${name}_${part}`).join(",\n        ");
  return `export interface ${name}\n    extends ${bases} {}\n`;
};
const joined = (name, parts, from) =>
  `${HEADER}${partImports(name, parts, from)}\n${joining(name, parts)}`;

/** One file's text: the members as `export interface <title> { … }`, dedented by `dedent`. */
function interfaceText(title, chunk, dedent, uses, prefix) {
  const text = chunk
    .map((member) => member.text)
    .join("")
    .replace(new RegExp(`^ {${dedent}}`, "gm"), "");
  return `${HEADER}${importsOf(text, uses, prefix)}\nexport interface ${title} {\n${text}}\n`;
}

/** paths or operations: <name>.d.ts, <name>/<tag>.d.ts and, for a long tag, one file a call. */
export function interfaceFiles(document, generated, name) {
  const { byId, byPath } = operationsOf(document);
  const uses = name === "paths" ? ["components", "operations"] : ["components"];
  const infoOf = (key) => (name === "paths" ? byPath[key] : byId[key]);
  const groups = {};
  for (const member of members(body(generated, name), 4)) {
    const tag = infoOf(member.key)?.tag ?? "other";
    (groups[tag] ??= []).push(member);
  }
  const files = {};
  const tags = Object.keys(groups).sort();
  for (const tag of tags) {
    const whole = interfaceText(`${name}_${tag}`, groups[tag], 0, uses, "../");
    if (lineCount(whole) <= LIMIT) {
      files[`${name}/${tag}.d.ts`] = whole;
      continue;
    }
    const calls = groups[tag].map((member) => infoOf(member.key)?.call ?? identifier(member.key));
    const unique = new Set(calls).size === calls.length;
    const parts = groups[tag].map((member, i) => (unique ? calls[i] : identifier(member.key)));
    groups[tag].forEach((member, i) => {
      files[`${name}/${tag}/${parts[i]}.d.ts`] = interfaceText(
        `${name}_${tag}_${parts[i]}`,
        [member],
        0,
        uses,
        "../../",
      );
    });
    const sorted = [...parts].sort();
    files[`${name}/${tag}.d.ts`] = joined(`${name}_${tag}`, sorted, (part) => `./${tag}/${part}`);
  }
  files[`${name}.d.ts`] = joined(name, tags, (tag) => `./${name}/${tag}`);
  return files;
}

/** Per schema: the operations that use it, directly or through another component. */
function usersOf(document) {
  const components = document.components ?? {};
  const schemas = components.schemas ?? {};
  const refsTo = (kind, value) =>
    [...JSON.stringify(value).matchAll(new RegExp(`"#/components/${kind}/([^"]+)"`, "g"))].map(
      (m) => m[1],
    );
  const refs = (value) => refsTo("schemas", value);
  const users = Object.fromEntries(Object.keys(schemas).map((schema) => [schema, []]));
  for (const info of Object.values(operationsOf(document).byId)) {
    const seen = new Set();
    const responses = refsTo("responses", info.operation).map((name) => components.responses[name]);
    const todo = [...refs(info.operation), ...refs(responses)];
    while (todo.length) {
      const schema = todo.pop();
      if (seen.has(schema) || !(schema in schemas)) continue;
      seen.add(schema);
      users[schema].push(info);
      todo.push(...refs(schemas[schema]));
    }
  }
  return users;
}

/** components.d.ts and components/<group>.d.ts (see the top of this file). */
export function schemaFiles(document, generated) {
  const block = body(generated, "components");
  const start = block.indexOf("    schemas: {\n");
  const end = block.indexOf("\n    };\n", start);
  if (start < 0 || end < 0) throw new Error("the generated components have no schemas block");
  const schemas = members(block.slice(start + "    schemas: {\n".length, end + 1), 8);
  const rest = members(block.slice(end + "\n    };\n".length), 4);
  const users = usersOf(document);
  const distinct = (values) => [...new Set(values)];
  const groupOf = {};
  for (const schema of schemas) {
    const resources = distinct(users[schema.key]?.map((info) => info.resource) ?? []);
    const shared = resources.length ? "shared" : "other";
    groupOf[schema.key] = resources.length === 1 ? resources[0] : shared;
  }
  const size = (group) =>
    schemas.filter((s) => groupOf[s.key] === group).reduce((n, s) => n + lineCount(s.text), 0);
  for (const group of distinct(Object.values(groupOf))) {
    if (size(group) <= LIMIT - 10 || group === "shared" || group === "other") continue;
    const cut = {};
    for (const schema of schemas.filter((s) => groupOf[s.key] === group)) {
      const calls = distinct(users[schema.key].map((info) => info.call));
      if (calls.length === 1) {
        cut[schema.key] = `${group}_${calls[0].replace(new RegExp(`^${group}_`), "")}`;
      }
    }
    // A call's few schemas are not worth a file of their own: they stay with the resource.
    for (const part of distinct(Object.values(cut))) {
      const chunk = schemas.filter((s) => cut[s.key] === part);
      if (chunk.reduce((n, s) => n + lineCount(s.text), 0) < LIMIT / 3) continue;
      for (const schema of chunk) groupOf[schema.key] = part;
    }
  }
  const files = {};
  const groups = distinct(Object.values(groupOf)).sort();
  for (const group of groups) {
    const chunk = schemas.filter((s) => groupOf[s.key] === group);
    const text = interfaceText(`schemas_${group}`, chunk, 4, ["components"], "../");
    files[`components/${group}.d.ts`] = text;
  }
  // The other kinds (responses, parameters…): `never`, or a block of their own file.
  const kinds = rest.filter((kind) => !/^ {4}[^:]+: never;\n$/.test(kind.text));
  for (const kind of kinds) {
    const inner = kind.text.slice(kind.text.indexOf("{\n") + 2, kind.text.lastIndexOf("    };\n"));
    const text = interfaceText(kind.key, members(inner, 8), 4, ["components"], "../");
    files[`components/${kind.key}.d.ts`] = text;
  }
  const kindImports = kinds
    .map((kind) => `import type { ${kind.key} } from "./components/${kind.key}";\n`)
    .join("");
  const fields = rest
    .map((kind) => (kinds.includes(kind) ? `    ${kind.key}: ${kind.key};\n` : kind.text))
    .join("");
  files["components.d.ts"] =
    `${HEADER}${partImports("schemas", groups, (group) => `./components/${group}`)}` +
    `${kindImports}\nexport interface components {\n    schemas: schemas;\n${fields}}\n\n` +
    joining("schemas", groups);
  return files;
}

/** src/api/schema.d.ts: what `import … from "./schema"` gives. */
export function indexFile() {
  return (
    `${HEADER}\n` +
    ["paths", "components", "operations"]
      .map((name) => `export type { ${name} } from "./schema/${name}";\n`)
      .join("")
  );
}
