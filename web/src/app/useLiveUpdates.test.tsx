import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mailKeys } from "@/features/mail/api/keys";
import { useLiveUpdates } from "./useLiveUpdates";

class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static all: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  listeners = new Map<string, (event: MessageEvent<string>) => void>();
  constructor(readonly url: string) {
    FakeEventSource.all.push(this);
  }
  addEventListener(name: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(name, listener);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }
  emit(name: string, id: string, data: unknown) {
    this.listeners.get(name)?.(new MessageEvent(name, { data: JSON.stringify(data), lastEventId: id }));
  }
  fail() {
    this.readyState = FakeEventSource.CLOSED;
    this.onerror?.();
  }
}

let client: QueryClient;
const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;

beforeEach(() => {
  FakeEventSource.all = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.useFakeTimers();
  client = new QueryClient();
  client.setQueryData(mailKeys.unreadCount(), 0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("useLiveUpdates", () => {
  it("opens one stream, applies events, and reconnects with backoff after the last id", () => {
    const { result, unmount } = renderHook(() => useLiveUpdates(true), { wrapper });
    expect(FakeEventSource.all).toHaveLength(1);
    const first = FakeEventSource.all[0]!;
    expect(first.url).toBe("http://localhost:3000/api/v1/events/stream");
    act(() => first.open());
    expect(result.current).toBe("live");
    // Fetched before the stream was live: a change in between has no event, so again.
    expect(client.getQueryState(mailKeys.unreadCount())?.isInvalidated).toBe(true);
    client.setQueryData(mailKeys.unreadCount(), 0);
    expect(client.getQueryState(mailKeys.unreadCount())?.isInvalidated).toBe(false);

    act(() => first.emit("new_mail", "41", { mail_id: "m1", mail_type: "normal" }));
    expect(client.getQueryState(mailKeys.unreadCount())?.isInvalidated).toBe(true);

    act(() => first.fail());
    expect(result.current).toBe("retrying");
    expect(FakeEventSource.all).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1_000));
    expect(FakeEventSource.all).toHaveLength(2);
    expect(FakeEventSource.all[1]!.url).toBe("http://localhost:3000/api/v1/events/stream?after=41");

    act(() => FakeEventSource.all[1]!.fail());
    act(() => vi.advanceTimersByTime(900));
    expect(FakeEventSource.all).toHaveLength(2); // the second wait is longer
    act(() => vi.advanceTimersByTime(1_200));
    expect(FakeEventSource.all).toHaveLength(3);

    unmount();
    expect(FakeEventSource.all[2]!.readyState).toBe(FakeEventSource.CLOSED);
  });

  it("leaves a dropped connection to the browser's own reconnect (with Last-Event-ID)", () => {
    renderHook(() => useLiveUpdates(true), { wrapper });
    const source = FakeEventSource.all[0]!;
    act(() => source.open());
    source.readyState = FakeEventSource.CONNECTING;
    act(() => source.onerror?.());
    act(() => vi.advanceTimersByTime(60_000));
    expect(FakeEventSource.all).toHaveLength(1);
    // Resumed from its Last-Event-ID, it missed nothing: nothing is fetched again.
    client.setQueryData(mailKeys.unreadCount(), 0);
    act(() => source.open());
    expect(client.getQueryState(mailKeys.unreadCount())?.isInvalidated).toBe(false);
  });
});
