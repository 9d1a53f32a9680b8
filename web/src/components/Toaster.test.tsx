import { act, screen } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dismissToast, showToast } from "@/lib/toast";
import { renderUi } from "@/test/render";
import { Toaster } from "./Toaster";

const userEvent = userEventLib.setup({ delay: null });

afterEach(() => act(() => dismissToast()));

describe("the toast", () => {
  it("says what happened in the live region; Undo runs the action and goes", async () => {
    const undo = vi.fn();
    renderUi(<Toaster />);
    act(() => showToast({ message: "Conversation closed.", action: { label: "Undo", run: undo } }));
    expect(screen.getByRole("status")).toHaveTextContent("Conversation closed.");
    await userEvent.click(screen.getByRole("button", { name: "Undo" }));
    expect(undo).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("status")).toBeEmptyDOMElement();
  });

  it("shows the newest message only, and its × dismisses it", async () => {
    renderUi(<Toaster />);
    act(() => showToast({ message: "first" }));
    act(() => showToast({ message: "second" }));
    expect(screen.getByRole("status")).toHaveTextContent("second");
    expect(screen.getByRole("status")).not.toHaveTextContent("first");
    await userEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.getByRole("status")).toBeEmptyDOMElement();
  });
});
