import type { TeamMember } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import type { AppContext } from "../app-context.js";
import { actionRow, busy, doneBox, errorBox, field, h, table, when } from "../dom.js";
import { tt } from "../i18n-team.js";
import { DashboardRole } from "../roles.js";
import { rpc } from "../rpc.js";

const roleChoices = [DashboardRole.VIEWER, DashboardRole.OPERATOR, DashboardRole.ADMIN, DashboardRole.OWNER];

function roleSelect(selected: DashboardRole): HTMLSelectElement {
  return h(
    "select",
    {},
    roleChoices.map((role) => h("option", { value: role, selected: role === selected }, tt().roles[role])),
  );
}

/** A link shown once (an invitation or a password reset), with a button that copies it. */
function shownOnce(url: string): HTMLElement {
  const copy = h("button", { type: "button", class: "secondary" }, tt().copy);
  copy.addEventListener("click", () => void navigator.clipboard?.writeText(url));
  return h(
    "div",
    { class: "card", role: "status" },
    h("p", {}, tt().linkShown),
    h("p", {}, h("code", { class: "secret", "data-testid": "shown-link" }, url), " ", copy),
  );
}

/**
 * The owner's page (docs/guide/dashboard.md#the-team): the members with their roles, the pending
 * invitations, and an invitation form. Each change asks for a recent code (step-up) through rpc.
 */
export async function teamView(app: AppContext): Promise<HTMLElement> {
  const section = h("section", {}, h("h1", { tabindex: -1 }, tt().teamTitle));
  const shown = h("div", { "aria-live": "polite" });
  const area = h("div", {});
  // Each action says how it went beside its buttons: an error in its row, 完了しました in the row
  // drawn again (or under the tables when the row went away: a member removed, an invitation cancelled).
  const done = doneBox();
  const doneRows = new Set<string>();
  const act = (button: HTMLButtonElement, problem: HTMLElement, row: string, action: () => Promise<void>) =>
    busy(button, problem, async () => {
      await action();
      done.textContent = "";
      doneRows.add(row);
      await render();
      if (doneRows.has(row)) done.textContent = tt().done;
      doneRows.clear();
    });
  const rowOutcome = (row: string, problem: HTMLElement) => {
    const note = doneBox();
    if (doneRows.delete(row)) note.textContent = tt().done;
    return [note, problem];
  };

  const memberActions = (member: TeamMember): HTMLElement => {
    if (member.email === app.user.email) return h("span", {}, tt().you);
    const problem = errorBox();
    const role = roleSelect(member.role);
    role.setAttribute("aria-label", tt().newRoleOf(member.email));
    const change = h("button", { type: "button", class: "secondary" }, tt().changeRole);
    change.addEventListener("click", () =>
      act(change, problem, member.userId, async () => {
        await rpc.changeTeamMemberRole({ userId: member.userId, role: Number(role.value) });
      }),
    );
    const button = (label: string, confirmText: string, action: () => Promise<void>) => {
      const b = h("button", { type: "button", class: "secondary", "aria-label": `${label}: ${member.email}` }, label);
      b.addEventListener("click", () => {
        if (confirm(confirmText)) void act(b, problem, member.userId, action);
      });
      return b;
    };
    return h(
      "div",
      { class: "actions outcome" },
      role,
      change,
      button(tt().resetPassword, tt().resetPasswordConfirm(member.email), async () => {
        const { url } = await rpc.resetTeamMemberPassword({ userId: member.userId });
        shown.replaceChildren(shownOnce(url));
      }),
      button(tt().resetTotp, tt().resetTotpConfirm(member.email), async () => {
        await rpc.resetTeamMemberTotp({ userId: member.userId });
      }),
      button(tt().remove, tt().removeConfirm(member.email), async () => {
        await rpc.removeTeamMember({ userId: member.userId });
      }),
      ...rowOutcome(member.userId, problem),
    );
  };

  async function render(): Promise<void> {
    const { members, invitations } = await rpc.listTeamMembers({});
    area.replaceChildren(
      table(
        tt().members,
        [tt().email, tt().role, tt().totp, tt().since, tt().actions],
        members.map((member) => [
          member.email,
          h("span", { class: "word" }, tt().roles[member.role] ?? ""),
          member.totpEnabled ? tt().on : tt().off,
          when(member.createdAt),
          memberActions(member),
        ]),
      ),
      h("h2", {}, tt().invitations),
      table(
        tt().invitations,
        [tt().email, tt().role, tt().invitedBy, tt().expires, tt().actions],
        invitations.map((invitation) => {
          const cancel = h(
            "button",
            { type: "button", class: "secondary", "aria-label": `${tt().cancelInvitation}: ${invitation.email}` },
            tt().cancelInvitation,
          );
          const problem = errorBox();
          cancel.addEventListener("click", () =>
            act(cancel, problem, invitation.id, async () => {
              await rpc.cancelInvitation({ id: invitation.id });
            }),
          );
          return [
            invitation.email,
            h("span", { class: "word" }, tt().roles[invitation.role] ?? ""),
            invitation.invitedBy,
            when(invitation.expiresAt),
            h("div", { class: "actions outcome" }, cancel, ...rowOutcome(invitation.id, problem)),
          ];
        }),
      ),
    );
  }

  const email = h("input", { type: "email", required: true, maxlength: 254, autocomplete: "off" });
  const role = roleSelect(DashboardRole.OPERATOR);
  const submit = h("button", { type: "submit" }, tt().invite);
  const inviteProblem = errorBox();
  const inviteDone = doneBox();
  const form = h(
    "form",
    { class: "card narrow" },
    h("h2", {}, tt().inviteTitle),
    field(tt().email, email),
    field(tt().role, role, tt().roleHelp),
    actionRow(submit, inviteDone, inviteProblem),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, inviteProblem, async () => {
      const { url } = await rpc.inviteTeamMember({ email: email.value.trim(), role: Number(role.value) });
      shown.replaceChildren(shownOnce(url));
      email.value = "";
      await render();
      inviteDone.textContent = tt().done;
    });
  });
  await render();
  section.append(h("h2", {}, tt().members), area, done, form, shown);
  return section;
}
