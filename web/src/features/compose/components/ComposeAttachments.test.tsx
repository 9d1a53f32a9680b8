/**
 * A file that cannot be attached never lets the mail go without it: one over the
 * gateway's limit (`GET /me` says it) is refused before any of it is sent, the
 * gateway's own 413 is said the same way, both name the limit in MiB in the
 * person's language, and Send waits until the failed file is removed.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { gateway, installFakeGateway, MAX_ATTACHMENT_BYTES } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { closeCompose } from "../hooks/composeStore";
import { ComposeDialog } from "./ComposeDialog";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

/** The upload's XMLHttpRequest: each request is kept for the test to answer. */
class Upload {
  static sent: Upload[] = [];
  status = 0;
  responseText = "";
  responseType = "";
  withCredentials = false;
  upload = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  file: File | null = null;
  open() {}
  send(body: FormData) {
    this.file = body.get("file") as File;
    Upload.sent.push(this);
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

beforeEach(() => {
  installFakeGateway();
  Upload.sent = [];
  vi.stubGlobal("XMLHttpRequest", Upload);
});
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
});

/** A file that says it is `size` bytes long, without holding them. */
function fileOf(name: string, size: number): File {
  const file = new File(["x"], name);
  Object.defineProperty(file, "size", { value: size });
  return file;
}

async function compose(language: "en" | "zh" = "en") {
  renderUi(<ComposeDialog request={{ mode: "new", to: "builder@ModelRouter" }} me="jianf@" />, { language });
  const dialog = await screen.findByRole("dialog");
  // The limit is known before a file is picked.
  await within(dialog).findByText(language === "en" ? /up to 25 MiB each/ : /每个文件最大 25 MiB/);
  const send = within(dialog).getByRole("button", { name: language === "en" ? "Send" : "发送" });
  const input = dialog.querySelector<HTMLInputElement>("input[type=file]");
  if (!input) throw new Error("no file input");
  return { dialog, send, input };
}

describe("attachments in compose", () => {
  it("refuses a file over the limit before uploading it, and Send waits until it is removed", async () => {
    const { dialog, send, input } = await compose();
    await userEvent.upload(input, fileOf("video.mp4", 26 * 1024 * 1024));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Over the 25 MiB limit for an attachment");
    expect(Upload.sent).toHaveLength(0);
    expect(send).toBeDisabled();
    expect(send).toHaveAccessibleDescription("Remove the files that could not be attached before sending.");
    // Ctrl+Enter does not send either.
    await userEvent.type(within(dialog).getByLabelText("Subject"), "Clip{Control>}{Enter}{/Control}");
    expect(gateway.calls).not.toContain("POST /api/v1/me/mail/send");

    await userEvent.click(within(dialog).getByRole("button", { name: "Remove video.mp4" }));
    expect(send).toBeEnabled();
    await userEvent.click(send);
    await waitFor(() => expect(gateway.calls).toContain("POST /api/v1/me/mail/send"));
  });

  it("takes a file of exactly the limit", async () => {
    const { dialog, send, input } = await compose();
    await userEvent.upload(input, fileOf("exact.bin", MAX_ATTACHMENT_BYTES));
    expect(Upload.sent).toHaveLength(1);
    expect(send).toBeDisabled(); // uploading
    act(() => Upload.sent[0]?.answer(200, { attachment_id: "a9", filename: "exact.bin", size: MAX_ATTACHMENT_BYTES, sha256: "0" }));
    await waitFor(() => expect(send).toBeEnabled());
    expect(within(dialog).queryByRole("alert")).not.toBeInTheDocument();
    await userEvent.click(send);
    await waitFor(() => expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({ attachment_ids: ["a9"] }));
  });

  it("says the gateway's 413 with the limit, not the gateway's words", async () => {
    const { dialog, send, input } = await compose();
    await userEvent.upload(input, fileOf("report.pdf", 1000));
    act(() =>
      Upload.sent[0]?.answer(413, { error: { code: "payload_too_large", message: "request body over 26279936 bytes" } }),
    );
    const alert = await within(dialog).findByRole("alert");
    expect(alert).toHaveTextContent("Over the 25 MiB limit for an attachment");
    expect(dialog).not.toHaveTextContent("26279936");
    expect(send).toBeDisabled();
  });

  it("blocks Send after any failed upload, in Chinese too", async () => {
    const { dialog, send, input } = await compose("zh");
    await userEvent.upload(input, [fileOf("a.txt", 10), fileOf("big.iso", 30 * 1024 * 1024)]);
    act(() => Upload.sent[0]?.answer(500, { error: { code: "internal_error", message: "boom" } }));
    await waitFor(() =>
      expect(within(dialog).getAllByRole("alert").map((a) => a.textContent)).toEqual([
        "未能添加为附件",
        "超过附件大小上限 25 MiB",
      ]),
    );
    expect(send).toBeDisabled();
    expect(within(dialog).getByText("请先移除未能添加的文件，再发送。")).toBeInTheDocument();
  });
});
