import { describe, expect, it } from "vitest";
import { renderUi } from "@/test/render";
import { BlockedImage } from "./BlockedImage";
import { MarkdownRenderer as Markdown } from "./MarkdownRenderer";

declare global {
  var __pwned: unknown;
}

// Payloads that would set window.__pwned if anything of them executed.
const CORPUS = [
  "<script>window.__pwned = 1</script>",
  "Hello <script>window.__pwned = 2</script> world",
  '<img src="x" onerror="window.__pwned = 3">',
  '<svg onload="window.__pwned = 4"><script>window.__pwned = 4</script></svg>',
  '<a href="javascript:window.__pwned = 5">click</a>',
  "[click](javascript:window.__pwned=6)",
  "[click](JaVaScRiPt:window.__pwned=7)",
  "[click](  javascript:window.__pwned=8)",
  "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "![x](javascript:window.__pwned=9)",
  '<div onclick="window.__pwned = 10" onmouseover="window.__pwned = 10">hover</div>',
  '<iframe src="javascript:window.__pwned = 11"></iframe>',
  '<p style="background:url(javascript:window.__pwned=12)">styled</p>',
  '<<script>script>window.__pwned = 13<</script>/script>',
  '<img src=x onerror=window.__pwned=14 <b>unclosed',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=15">',
  '[a](vbscript:window.__pwned=16)',
  '<form action="javascript:window.__pwned=17"><button>go</button></form>',
  "```html\n<script>window.__pwned = 18</script>\n```",
  '<object data="javascript:window.__pwned=19"></object><embed src="javascript:window.__pwned=19">',
];

const ON_ATTRIBUTE = /^on/i;

function assertInert(root: HTMLElement) {
  for (const tag of ["script", "iframe", "object", "embed", "form", "svg", "math", "style"]) {
    // The app's own icons (lucide, hidden from assistive technology) are the only SVG.
    expect(root.querySelector(tag === "svg" ? "svg:not(.lucide[aria-hidden=true])" : tag), tag).toBeNull();
  }
  for (const element of Array.from(root.querySelectorAll("*"))) {
    for (const attribute of Array.from(element.attributes)) {
      expect(ON_ATTRIBUTE.test(attribute.name), `${element.tagName} ${attribute.name}`).toBe(false);
      expect(attribute.name).not.toBe("style");
      if (["href", "src", "action", "data"].includes(attribute.name)) {
        expect(attribute.value.trim()).not.toMatch(/^(javascript|vbscript|data):/i);
      }
    }
  }
}

describe("Markdown", () => {
  it.each(CORPUS)("renders %j without anything executable", (payload) => {
    globalThis.__pwned = undefined;
    const { container } = renderUi(<Markdown text={payload} />);
    assertInert(container);
    expect(globalThis.__pwned).toBeUndefined();
  });

  it("shows raw HTML as text rather than dropping what the author wrote", () => {
    const { container } = renderUi(<Markdown text="<b>bold?</b>" />);
    expect(container.querySelector("b")).toBeNull();
    expect(container).toHaveTextContent("<b>bold?</b>");
  });

  it("renders GitHub-flavoured Markdown: tables, task lists, strikethrough, code", () => {
    const text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~old~~ `code`";
    const { container } = renderUi(<Markdown text={text} />);
    expect(container.querySelector("table td")).toHaveTextContent("1");
    const boxes = container.querySelectorAll<HTMLInputElement>('input[type="checkbox"]');
    expect(boxes).toHaveLength(2);
    expect(boxes[0]?.checked).toBe(true);
    expect(boxes[0]?.disabled).toBe(true);
    expect(container.querySelector("del")).toHaveTextContent("old");
    expect(container.querySelector("code")).toHaveTextContent("code");
  });

  it("highlights fenced code with a language, and keeps it text", () => {
    const { container } = renderUi(<Markdown text={"```python\ndef leak():\n    return 'x'  # fix\n```"} />);
    const code = container.querySelector("pre code");
    expect(code).toHaveClass("language-python");
    expect(code?.querySelector(".hljs-keyword")).toHaveTextContent("def");
    expect(code?.querySelector(".hljs-comment")).toHaveTextContent("# fix");
    assertInert(container);
  });

  it("shows an image as a placeholder naming its host, and never asks for it", async () => {
    const text = "![build graph](https://tracker.example.com/pixel.png?user=1) and ![](/local.png)";
    const { container, findAllByText } = renderUi(<Markdown text={text} image={BlockedImage} />);
    expect(container.querySelector("img")).toBeNull();
    const blocked = container.querySelectorAll("[data-blocked-image]");
    expect(blocked).toHaveLength(2);
    expect(blocked[0]).toHaveTextContent("Image from tracker.example.com blocked · build graph");
    expect(blocked[1]).toHaveTextContent(`Image from ${window.location.host} blocked`);
    await findAllByText(/blocked/);
    assertInert(container);
  });

  it("opens links in a new tab without opener or referrer", () => {
    const { container } = renderUi(<Markdown text="[docs](https://example.com/a) and https://example.org" />);
    const links = container.querySelectorAll("a");
    expect(links).toHaveLength(2);
    for (const link of Array.from(links)) {
      expect(link).toHaveAttribute("target", "_blank");
      expect(link).toHaveAttribute("rel", "noopener noreferrer");
    }
    expect(links[0]).toHaveAttribute("href", "https://example.com/a");
  });
});
