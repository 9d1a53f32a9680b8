import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./errors";
import { uploadAttachment } from "./upload";

/** Just enough of XMLHttpRequest: the test drives progress and the answer. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = "";
  url = "";
  status = 0;
  responseText = "";
  responseType = "";
  withCredentials = false;
  body: FormData | null = null;
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = typeof body === "string" ? body : JSON.stringify(body);
    this.onload?.();
  }
}

afterEach(() => vi.unstubAllGlobals());

describe("uploadAttachment", () => {
  it("posts the file as multipart `file`, reports progress, resolves to the attachment", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const progress: number[] = [];
    const file = new File(["hello"], "report.pdf", { type: "application/pdf" });
    const done = uploadAttachment(file, { baseUrl: "http://gw.test", onProgress: (f) => progress.push(f) });
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe("POST");
    expect(xhr.url).toBe("http://gw.test/api/v1/me/attachments");
    expect((xhr.body?.get("file") as File).name).toBe("report.pdf");
    xhr.upload.onprogress?.({ lengthComputable: true, loaded: 2, total: 4 });
    const attachment = { attachment_id: "a1", filename: "report.pdf", content_type: "application/pdf", size: 5, sha256: "x" };
    xhr.answer(200, attachment);
    await expect(done).resolves.toEqual(attachment);
    expect(progress).toEqual([0.5, 1]);
  });

  it("rejects with the API's error, e.g. the size limit", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const done = uploadAttachment(new File(["x"], "big.iso"));
    FakeXhr.last!.answer(413, { error: { code: "payload_too_large", message: "the attachment is over 25 MiB" } });
    await expect(done).rejects.toMatchObject({ status: 413, code: "payload_too_large", message: "the attachment is over 25 MiB" });
  });

  it("rejects on a network failure and on cancel", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const failed = uploadAttachment(new File(["x"], "a"));
    FakeXhr.last!.onerror?.();
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({ code: "network_error" });
    const controller = new AbortController();
    const cancelled = uploadAttachment(new File(["x"], "a"), { signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: "aborted" });
  });
});
