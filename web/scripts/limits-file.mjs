// src/api/schema/limits.ts: the bounds the gateway declares on what a client sends,
// as values (openapi-typescript keeps types only), so an input can hold to them as
// the user types: `limits.schemas.SendRequest.subject.maxLength`.

const KEYS = ["maxLength", "minLength", "maxItems", "minItems", "maximum", "minimum"];

/** The bounds of one property: its own, or those of its `anyOf` members (`X | null`). */
function bounds(schema) {
  const found = {};
  for (const member of [schema, ...(schema.anyOf ?? [])]) {
    for (const key of KEYS) if (key in member && !(key in found)) found[key] = member[key];
  }
  return found;
}

function bounded(properties) {
  const out = {};
  for (const [name, schema] of Object.entries(properties ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const found = bounds(schema);
    if (Object.keys(found).length) out[name] = found;
  }
  return out;
}

export function limitsFile(document, header) {
  const schemas = {};
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const found = bounded(schema.properties);
    if (Object.keys(found).length) schemas[name] = found;
  }
  const parameters = {};
  for (const [path, operations] of Object.entries(document.paths ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, operation] of Object.entries(operations)) {
      const found = bounded(Object.fromEntries((operation.parameters ?? []).map((p) => [p.name, p.schema ?? {}])));
      if (Object.keys(found).length) parameters[`${method.toUpperCase()} ${path}`] = found;
    }
  }
  // One line a property.
  const group = (entries) =>
    Object.entries(entries)
      .map(([owner, props]) => {
        const lines = Object.entries(props).map(([name, b]) => `      ${JSON.stringify(name)}: ${JSON.stringify(b)},`);
        return `    ${JSON.stringify(owner)}: {\n${lines.join("\n")}\n    },`;
      })
      .join("\n");
  const text = `{\n  schemas: {\n${group(schemas)}\n  },\n  parameters: {\n${group(parameters)}\n  },\n}`;
  return (
    `${header}\n` +
    "/** The bounds the gateway declares: on each schema's properties, and on each operation's parameters. */\n" +
    `export const limits = ${text} as const;\n`
  );
}
