/**
 * A mail body as GitHub-flavoured Markdown. Raw HTML never renders: it is shown
 * as text, and rehype-sanitize strips anything unsafe that is left;
 * links leave the app in a new tab with no opener and no referrer. An image is
 * never an <img>: `image` stands for it (the app's BlockedImage), so nothing is fetched.
 */
import { useMemo, type ComponentProps, type ComponentType } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import highlightCode from "./highlightCode";

const schema = {
  ...defaultSchema,
  // GitHub's schema prefixes ids with `user-content-`; keep that, drop `clobber` surprises.
  protocols: { ...defaultSchema.protocols, href: ["http", "https", "mailto"], src: ["http", "https"] },
};

function SafeLink({ href, children, ...rest }: ComponentProps<"a"> & { node?: unknown }) {
  const { node: _node, ...props } = rest as typeof rest & { node?: unknown };
  return (
    <a {...props} href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/** A code block scrolls sideways on a narrow screen: focusable, so a keyboard can
 * scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable found it at 390 px). */
function ScrollableCode({ children, ...rest }: ComponentProps<"pre"> & { node?: unknown }) {
  const { node: _node, ...props } = rest as typeof rest & { node?: unknown };
  return (
    <pre {...props} tabIndex={0}>
      {children}
    </pre>
  );
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** Raw HTML in a mail is shown as the text it is, never parsed: a remark plugin. */
function htmlAsText() {
  const walk = (node: MdNode) => {
    for (const child of node.children ?? []) {
      if (child.type === "html") child.type = "text";
      else walk(child);
    }
  };
  return (tree: MdNode) => walk(tree);
}

/** What stands for an image: the app's placeholder (BlockedImage), given by `Markdown`
 * so that this lazily loaded chunk imports nothing the first paint also needs. */
export type ImageStandIn = ComponentType<{ src?: string | undefined; alt?: string | undefined }>;

const AltText: ImageStandIn = ({ alt }) => (alt ? <span>{alt}</span> : null);

function urlTransform(url: string): string {
  const safe = defaultUrlTransform(url);
  return /^(https?:|mailto:|#|\/(?!\/))/i.test(safe) ? safe : "";
}

/** Rendered Markdown (GFM, sanitised, code highlighted); load it through `Markdown`. */
export function MarkdownRenderer({ text, className = "", image = AltText }: { text: string; className?: string; image?: ImageStandIn }) {
  const components: Components = useMemo(() => {
    const Img = image;
    const img = ({ src, alt }: ComponentProps<"img"> & { node?: unknown }) => (
      <Img src={typeof src === "string" ? src : undefined} alt={alt} />
    );
    return { a: SafeLink, img, pre: ScrollableCode };
  }, [image]);
  return (
    <div className={`prose-mail ${className}`}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm, htmlAsText]}
        // Highlight after sanitising: it only adds spans with `hljs-*` classes.
        rehypePlugins={[[rehypeSanitize, schema], highlightCode]}
        components={components}
        urlTransform={urlTransform}
        skipHtml={false}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
export default MarkdownRenderer;
