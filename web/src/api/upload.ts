/** Attachment upload with progress: fetch has no upload progress, XMLHttpRequest has. */
import { ApiError, toApiError } from "./errors";
import type { Attachment } from "./types";

export interface UploadOptions {
  baseUrl?: string;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export function uploadAttachment(file: File, options: UploadOptions = {}): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${options.baseUrl ?? ""}/api/v1/me/attachments`);
    xhr.withCredentials = false; // same-origin requests send the cookie anyway
    xhr.responseType = "text";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // keep the text
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        options.onProgress?.(1);
        resolve(body as Attachment);
      } else {
        reject(toApiError(xhr.status, body));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, "network_error", "the upload failed"));
    xhr.onabort = () => reject(new ApiError(0, "aborted", "the upload was cancelled"));
    options.signal?.addEventListener("abort", () => xhr.abort());
    const form = new FormData();
    form.append("file", file);
    xhr.send(form);
  });
}
