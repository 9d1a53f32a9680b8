/**
 * The mark of mail stored from outside: not verified says why and that it decided
 * nothing, verified says so; the Authentication-Results behind an expander; in
 * Chinese too. A mail with no mark has no banner.
 */
import { screen } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { base } from "@/test/fixtures";
import { renderUi } from "@/test/render";
import { MailReader } from "./MailReader";
import { OutsideBanner } from "./OutsideBanner";

const userEvent = userEventLib.setup({ delay: null });
const none = () => {};
const actions = { onReply: none, onArchive: none, onDelete: none, onRestore: none, onMarkUnread: none, onMoved: none };
const unverified = {
  sender: "a@out.test",
  verified: false,
  decided: false,
  reason: "the sender's domain is not proven (no DMARC pass): dmarc=none",
  reason_code: "no_domain_proof" as const,
  authentication_results: "agentmail.localhost; spf=none; dkim=none; dmarc=none",
};

describe("the outside mark", () => {
  it("says a mail was not verified, why, and that it decided nothing", async () => {
    renderUi(<OutsideBanner mark={unverified} />);
    expect(screen.getByRole("complementary", { name: "Mail from outside the gateway" })).toHaveTextContent(
      "From outside: a@out.test. Not verified: the sender's domain is not proven (no DMARC pass) — this mail decided nothing.",
    );
    const results = screen.getByText(/spf=none; dkim=none/);
    expect(results).not.toBeVisible();
    await userEvent.click(screen.getByText("Authentication-Results"));
    expect(results).toBeVisible();
  });

  it("says a verified reply is one", () => {
    renderUi(<OutsideBanner mark={{ ...unverified, verified: true, decided: true, reason: "verified", reason_code: "verified" }} />);
    expect(screen.getByText("Verified reply from a@out.test.")).toBeInTheDocument();
    expect(screen.getByText("It decided the request it replies to.")).toBeInTheDocument();
  });

  it("says it in Chinese", () => {
    renderUi(<OutsideBanner mark={unverified} />, { language: "zh" });
    expect(screen.getByText(/来自外部：a@out.test。未经验证/)).toBeInTheDocument();
  });

  it("is in the reading pane only for a marked mail", () => {
    const { unmount } = renderUi(<MailReader mail={{ ...base, outside: unverified }} {...actions} />);
    expect(screen.getByText(/Not verified/)).toBeInTheDocument();
    unmount();
    renderUi(<MailReader mail={base} {...actions} />);
    expect(screen.queryByText(/Not verified/)).toBeNull();
  });
});
