import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { base, listedOf } from "@/test/fixtures";
import { renderUi } from "@/test/render";
import { QuickReply } from "@/features/compose/components/QuickReply";
import { MailRow } from "@/features/mail/components/MailRow";
import { PartyName } from "@/components/PartyName";

const fromBob = { ...base, from: "mailto:bob@example.com", from_email: "bob@example.com", to: "ana@", cc: [] };

describe("outside senders of imported mail", () => {
  it("are shown by address with a mark, never as mailto:", () => {
    renderUi(<MailRow mail={listedOf(fromBob)} selected={false} onOpen={() => {}} />);
    expect(screen.getByText("bob@example.com")).toBeInTheDocument();
    expect(screen.getByText("outside")).toBeInTheDocument();
    expect(screen.getByText("(outside the gateway)")).toBeInTheDocument();
    expect(document.body.textContent).not.toContain("mailto:");
  });

  it("say so in Chinese", () => {
    renderUi(<PartyName address="mailto:bob@example.com" full />, { language: "zh" });
    expect(screen.getByText("外部")).toBeInTheDocument();
  });

  it("leave a gateway name as it is", () => {
    renderUi(<PartyName address="builder@ModelRouter.fix-leak" />);
    expect(screen.getByText("builder")).toBeInTheDocument();
    expect(screen.queryByText("outside")).toBeNull();
  });

  it("get an explanation instead of a reply box when nobody else is on the mail", () => {
    renderUi(<QuickReply mail={fromBob} me="ana" />);
    expect(screen.getByText(/bob@example.com: outside the gateway.*no one to reply to/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Reply to/ })).toBeNull();
  });
});
