/**
 * The AgentMail extension for pi, loaded by the pi bridge (`pi --mode rpc -e agentmail.ts`).
 *
 * It keeps no logic of its own: every decision is the bridge's, reached over pi's own
 * extension UI sub-protocol (docs/rpc.md, "Extension UI Protocol"), which in RPC mode
 * turns each dialog into an `extension_ui_request` on stdout that the bridge answers
 * with an `extension_ui_response` on stdin. Three kinds of dialog:
 *
 * - `confirm("agentmail:permission", {tool, toolCallId, input})` from the `tool_call` hook,
 *   for the tools named in AGENTMAIL_PI_GATED: pi's own permission gate. The bridge
 *   answers from the conversation's grants, or mails the human and answers when they
 *   decide. A rejection asks `editor("agentmail:note", {toolCallId})` for the human's
 *   note, so the blocked tool's result tells the model why.
 * - `editor("agentmail:tool", {name, arguments})` from each mail tool: the bridge runs the
 *   tool (bridges/tools, the one catalog) and answers `{ok, text}` or `{ok: false, error}`.
 *   The catalog (name, description, JSON schema) comes from the file AGENTMAIL_PI_TOOLS,
 *   which the bridge writes from bridges/tools/catalog.py: never a copy kept here.
 * - `select`/`input` from the `question` tool: pi's question to the user, which the
 *   bridge mails as a question and answers with the human's reply.
 *
 * Only type imports from pi (erased when pi loads this file with jiti), so the file
 * needs nothing installed beside it.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { readFileSync } from "node:fs";

interface CatalogTool {
	name: string;
	description: string;
	input_schema: Record<string, unknown>;
}

interface ToolAnswer {
	ok: boolean;
	text?: string;
	error?: string;
}

const PERMISSION = "agentmail:permission";
const NOTE = "agentmail:note";
const TOOL = "agentmail:tool";

function catalog(): CatalogTool[] {
	const path = process.env.AGENTMAIL_PI_TOOLS;
	return path ? (JSON.parse(readFileSync(path, "utf8")) as CatalogTool[]) : [];
}

function gated(): Set<string> {
	return new Set(
		(process.env.AGENTMAIL_PI_GATED ?? "bash,edit,write")
			.split(",")
			.map((name) => name.trim())
			.filter(Boolean),
	);
}

function text(value: string) {
	return { content: [{ type: "text" as const, text: value }], details: {} };
}

export default function agentmail(pi: ExtensionAPI) {
	for (const tool of catalog()) {
		pi.registerTool({
			name: tool.name,
			label: tool.name,
			description: tool.description,
			parameters: tool.input_schema as never,
			async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
				const raw = await ctx.ui.editor(TOOL, JSON.stringify({ name: tool.name, arguments: params }));
				const answer = JSON.parse(raw ?? '{"ok": false, "error": "the bridge did not answer"}') as ToolAnswer;
				if (!answer.ok) throw new Error(answer.error ?? "the tool failed");
				return text(answer.text ?? "");
			},
		});
	}

	pi.registerTool({
		name: "question",
		label: "Question",
		description:
			"Ask the human who gave you this task a question and wait for the answer (it reaches " +
			"them by mail). Use it when you cannot go on without their choice or information. " +
			"Give `options` when the answer is one of a few choices; the human may still write " +
			"something else.",
		parameters: {
			type: "object",
			properties: {
				question: { type: "string", minLength: 1, maxLength: 4000, description: "The question." },
				options: {
					type: "array",
					maxItems: 20,
					items: { type: "string", minLength: 1, maxLength: 200 },
					description: "Choices to offer, if any.",
				},
			},
			required: ["question"],
			additionalProperties: false,
		} as never,
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			const { question, options } = params as { question: string; options?: string[] };
			const answer = options?.length
				? await ctx.ui.select(question, options, { signal })
				: await ctx.ui.input(question, undefined, { signal });
			if (answer === undefined) return text("The human did not answer.");
			return text(`The human answered: ${answer}`);
		},
	});

	const gatedTools = gated();
	pi.on("tool_call", async (event, ctx) => {
		if (!gatedTools.has(event.toolName)) return undefined;
		const asked = JSON.stringify({ tool: event.toolName, toolCallId: event.toolCallId, input: event.input });
		if (await ctx.ui.confirm(PERMISSION, asked, { signal: ctx.signal })) return undefined;
		if (ctx.signal?.aborted) return { block: true, reason: "The turn was stopped." };
		const note = await ctx.ui.editor(NOTE, JSON.stringify({ toolCallId: event.toolCallId }));
		return { block: true, reason: note || "The human did not allow this action." };
	});
}
