import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Mail } from "@/api";
import { renderUi } from "@/test/render";
import { PermissionCard } from "./PermissionCard";

// No pause between keystrokes: the tests type a lot.
const userEvent = userEventLib.setup({ delay: null });

const SHA = "3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed";

function request(overrides: Partial<Mail> = {}): Mail {
  return {
    mail_id: "m1",
    session_id: "s1",
    session_alias: "fix-leak",
    seq: 1,
    from: "builder@ModelRouter.fix-leak",
    from_email: "builder@agentmail.localhost",
    to: "jianf@.fix-leak",
    to_email: "jianf@agentmail.localhost",
    cc: [],
    cc_email: [],
    subject: "May I delete the build cache?",
    body: "May I delete the build cache?\n\nIt is **40 GB** and stale.",
    body_preview: "May I delete the build cache? It is 40 GB and stale.",
    mail_type: "permission_request",
    message_id: "<m1@agentmail.localhost>",
    parent_mail_id: null,
    created_at: "2026-12-01T10:00:00Z",
    auto: false,
    status: "unread",
    options: ["approve", "always allow", "reject"],
    permission_state: "open",
    action: "rm -rf /srv/app/.cache",
    action_sha256: SHA,
    expires_at: null,
    decision: null,
    decision_note: null,
    decided_by: null,
    decided_at: null,
    attachments: [],
    ...overrides,
  };
}

afterEach(() => vi.useRealTimers());

describe("PermissionCard", () => {
  it("open: question, context, the exact action with its short hash, options and a note", async () => {
    renderUi(<PermissionCard mail={request()} me="jianf" onDecide={vi.fn()} />);
    const card = screen.getByRole("region", { name: "Permission request" });
    expect(card).toHaveAttribute("data-state", "open");
    expect(screen.getByRole("heading", { name: "May I delete the build cache?" })).toBeInTheDocument();
    expect((await screen.findByText("40 GB")).tagName).toBe("STRONG");
    expect(screen.getByText("rm -rf /srv/app/.cache").tagName).toBe("PRE");
    expect(screen.getByText(`sha256 ${SHA.slice(0, 12)}…`)).toHaveAttribute("title", SHA);
    for (const option of ["approve", "always allow", "reject"]) {
      expect(screen.getByRole("button", { name: option })).toBeEnabled();
    }
    expect(screen.getByLabelText("Note (optional)")).toBeInTheDocument();
  });

  it("counts down to the expiry, live, and turns expired when it passes", () => {
    vi.useFakeTimers({ now: new Date("2026-12-01T10:00:00Z") });
    renderUi(<PermissionCard mail={request({ expires_at: "2026-12-01T10:01:05Z" })} me="jianf" onDecide={vi.fn()} />);
    expect(screen.getByText("Expires in 1:05")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(5_000));
    expect(screen.getByText("Expires in 1:00")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(61_000));
    expect(screen.getByRole("region")).toHaveAttribute("data-state", "expired");
    expect(screen.queryByRole("button", { name: "approve" })).not.toBeInTheDocument();
  });

  it("decided here: sends the decision with the note, then says what I chose", async () => {
    const onDecide = vi.fn().mockResolvedValue({ status: "decided" });
    renderUi(<PermissionCard mail={request()} me="jianf" onDecide={onDecide} />);
    await userEvent.type(screen.getByLabelText("Note (optional)"), "only the cache");
    await userEvent.click(screen.getByRole("button", { name: "always allow" }));
    expect(onDecide).toHaveBeenCalledWith("always allow", "only the cache");
    // The card changes once the decision's promise has settled, not in the click itself.
    await waitFor(() => expect(screen.getByRole("region")).toHaveAttribute("data-state", "decidedHere"));
    expect(screen.getByText("You chose “always allow”.")).toBeInTheDocument();
    expect(screen.getByText("Note: only the cache")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "approve" })).not.toBeInTheDocument();
  });

  it("shows the API's refusal and stays open when the decision fails", async () => {
    const { ApiError } = await import("@/api");
    const onDecide = vi.fn().mockRejectedValue(new ApiError(422, "invalid_decision", "pick one of: approve, reject"));
    renderUi(<PermissionCard mail={request()} me="jianf" onDecide={onDecide} />);
    fireEvent.click(screen.getByRole("button", { name: "approve" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("This is not one of the request's options.");
    expect(screen.getByRole("region")).toHaveAttribute("data-state", "open");
  });

  it("decided elsewhere (a mail reply, another tab): changes state live when the mail is updated", () => {
    const { rerender } = renderUi(<PermissionCard mail={request()} me="jianf" onDecide={vi.fn()} />);
    rerender(
      <PermissionCard
        mail={request({
          permission_state: "decided",
          decision: "reject",
          decision_note: "not now",
          decided_by: "jianf",
          decided_at: "2026-12-01T10:02:00Z",
        })}
        me="jianf"
        onDecide={vi.fn()}
      />,
    );
    expect(screen.getByRole("region")).toHaveAttribute("data-state", "decidedElsewhere");
    expect(screen.getByText(/Decided elsewhere: “reject” by jianf/)).toBeInTheDocument();
    expect(screen.getByText("Note: not now")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "approve" })).not.toBeInTheDocument();
  });

  it("expired by the server: no options, says so", () => {
    renderUi(<PermissionCard mail={request({ permission_state: "expired" })} me="jianf" onDecide={vi.fn()} />);
    expect(screen.getByRole("region")).toHaveAttribute("data-state", "expired");
    expect(screen.getByText(/expired before a decision/)).toBeInTheDocument();
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
  });

  it("addressed to someone else (I am in cc): no buttons, says who decides", () => {
    renderUi(<PermissionCard mail={request()} me="alice" onDecide={vi.fn()} />);
    expect(screen.queryByRole("button", { name: "approve" })).not.toBeInTheDocument();
    expect(screen.getByText("Waiting for jianf to decide.")).toBeInTheDocument();
  });

  it("defaults to approve / reject when the request names no options", () => {
    renderUi(<PermissionCard mail={request({ options: null })} me="jianf" onDecide={vi.fn()} />);
    expect(screen.getByRole("button", { name: "approve" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "reject" })).toBeInTheDocument();
  });
});
