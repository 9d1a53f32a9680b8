/**
 * A rehype plugin that highlights `pre > code.language-*` with lowlight, for the
 * languages in codeLanguages.ts only (rehype-highlight bundles ~40). It runs
 * after sanitising and only adds spans with `hljs-*` classes.
 */
import type { Element, ElementContent, Root, RootContent } from "hast";
import { createLowlight } from "lowlight";
import { CODE_ALIASES, CODE_LANGUAGES } from "./codeLanguages";

const lowlight = createLowlight(CODE_LANGUAGES);
lowlight.registerAlias(CODE_ALIASES);

function language(code: Element): string | null {
  const classes = code.properties.className;
  const list = Array.isArray(classes) ? classes.map(String) : [];
  const name = list.find((c) => c.startsWith("language-"))?.slice("language-".length);
  return name && lowlight.registered(name) ? name : null;
}

function text(node: ElementContent): string {
  if (node.type === "text") return node.value;
  return "children" in node ? node.children.map(text).join("") : "";
}

function visit(node: Root | Element): void {
  for (const child of node.children as RootContent[]) {
    if (child.type !== "element") continue;
    const code = child.tagName === "pre" ? child.children.find((c): c is Element => c.type === "element" && c.tagName === "code") : undefined;
    const name = code ? language(code) : null;
    if (code && name) {
      const tree = lowlight.highlight(name, code.children.map(text).join(""));
      code.children = tree.children as ElementContent[];
      code.properties.className = [...(Array.isArray(code.properties.className) ? code.properties.className.map(String) : []), "hljs"];
    } else visit(child);
  }
}

export default function highlightCode() {
  return (tree: Root) => visit(tree);
}
