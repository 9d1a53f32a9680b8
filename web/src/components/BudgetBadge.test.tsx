import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderUi } from "@/test/render";
import { BudgetBadge, budgetLevel } from "./BudgetBadge";

describe("BudgetBadge", () => {
  it("is hidden when the budget is unlimited", () => {
    const { container } = renderUi(<BudgetBadge limit="unlimited" used={7} remaining="unlimited" />);
    expect(container).toBeEmptyDOMElement();
  });

  it("shows what is left, in the normal colours, while more than one round is left", () => {
    renderUi(<BudgetBadge limit={20} used={5} remaining={15} />);
    const badge = screen.getByTitle(/Round-trip budget/);
    expect(badge).toHaveTextContent("15/20");
    expect(badge).toHaveAttribute("data-level", "normal");
    expect(badge).toHaveTextContent("Round-trip budget: 15 of 20 agent mails left");
    expect(badge.className).toContain("text-muted");
  });

  it("turns orange with one round left", () => {
    renderUi(<BudgetBadge limit={3} used={2} remaining={1} />);
    const badge = screen.getByTitle(/Round-trip budget/);
    expect(badge).toHaveAttribute("data-level", "low");
    expect(badge.className).toContain("text-warn");
  });

  it("turns red with none left", () => {
    renderUi(<BudgetBadge limit={3} used={3} remaining={0} />);
    const badge = screen.getByTitle(/Round-trip budget/);
    expect(badge).toHaveTextContent("0/3");
    expect(badge).toHaveAttribute("data-level", "exhausted");
    expect(badge.className).toContain("text-danger");
  });

  it("derives what is left from limit and used when remaining is not given", () => {
    renderUi(<BudgetBadge limit={2} used={1} />);
    expect(screen.getByTitle(/Round-trip budget/)).toHaveAttribute("data-level", "low");
  });

  it("is a button when it can be changed", () => {
    renderUi(<BudgetBadge limit={5} used={0} remaining={5} onClick={() => {}} />);
    expect(screen.getByRole("button", { name: /5 of 5/ })).toBeInTheDocument();
  });

  it.each([
    [5, "normal"],
    [2, "normal"],
    [1, "low"],
    [0, "exhausted"],
    [-1, "exhausted"],
  ] as const)("budgetLevel(%i) is %s", (left, level) => {
    expect(budgetLevel(left)).toBe(level);
  });
});
