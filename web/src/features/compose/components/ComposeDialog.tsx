/**
 * New mail, reply, reply-all and forward in one window. An undeliverable
 * address is explained inline under its field, the API's refusal said in the
 * user's words: checked when the field is left and before sending. The check
 * never blocks the send (the send decides, and refuses the same way). Under To a
 * line says where the mail goes (a new conversation, or which one it continues
 * and its rounds left); a `….new` address gets an alias field. A file that could
 * not be attached blocks the send until it is removed.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, limits as bounds, type Budget, type DraftInput } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { LengthCount, nearLimit } from "@/components/LengthCount";
import { Modal } from "@/components/Modal";
import { errorText } from "@/lib/errorText";
import { sdk } from "@/lib/sdk";
import { splitAddresses } from "../addressList";
import { uploadLimitsQuery } from "../api/queries";
import { closeCompose, type ComposeRequest } from "../hooks/composeStore";
import { initialFields } from "../hooks/initialFields";
import { useAddressChecks } from "../hooks/useAddressChecks";
import { useAddressReach } from "../hooks/useAddressReach";
import { useDraftAutosave } from "../hooks/useDraftAutosave";
import { AddressField } from "./AddressField";
import { AddressReachLine } from "./AddressReachLine";
import { AliasField, aliasProblem, aliasToSend } from "./AliasField";
import { AttachmentPicker, type Upload } from "./AttachmentPicker";
import { MarkdownEditor } from "./MarkdownEditor";
import { OutsideReplyNote } from "./OutsideReplyNote";

const MAX_SUBJECT = bounds.schemas.SendRequest.subject.maxLength;
const ADDRESS_ERRORS = new Set(["invalid_address", "unknown_recipient", "unknown_workspace", "unknown_alias"]);
const OPENS_NEW = /\.new$/i;

function parseBudget(text: string): Budget | null {
  if (text === "unlimited") return "unlimited";
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) && n >= 1 ? n : null;
}

export function ComposeDialog({ request, me }: { request: ComposeRequest; me: string }) {
  const { t, i18n } = useTranslation();
  const ids = { subject: useId(), budget: useId(), blocked: useId() };
  const queryClient = useQueryClient();
  const start = useMemo(() => initialFields(request, me, i18n.language), [request, me, i18n.language]);
  const [to, setTo] = useState(start.to);
  const [cc, setCc] = useState(start.cc.join(", "));
  const [subject, setSubject] = useState(start.subject);
  const [body, setBody] = useState(start.body);
  const [budget, setBudget] = useState(start.budget);
  const [alias, setAlias] = useState<string | null>(start.sessionAlias);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const forwarding = request.mode === "forward";
  const newConversation = !start.replyTo && !forwarding;
  const limits = useQuery(uploadLimitsQuery());
  const reach = useAddressReach(to, start.replyTo);
  // The budget is a new conversation's: continuing one, it would be ignored.
  const asksBudget = newConversation && !reach?.conversation;
  const opensNew = !forwarding && OPENS_NEW.test(to.trim());
  const sessionAlias = opensNew ? aliasToSend(alias) : null;

  const draftInput: DraftInput | null = forwarding
    ? null
    : {
        to: to.trim() || null,
        cc: splitAddresses(cc),
        subject,
        body,
        reply_to: start.replyTo,
        session_alias: sessionAlias,
        budget: asksBudget ? parseBudget(budget) : null,
      };
  const draft = useDraftAutosave(draftInput, request.mode === "draft" ? request.draft.draft_id : null);

  const checks = useAddressChecks();
  const toProblem = checks.problems([to])[0]?.message ?? null;
  const ccProblems = checks.problems(splitAddresses(cc));
  const checkedProblem = toProblem !== null || ccProblems.length > 0;
  // The send's own refusal of an address, unless a check already explains it under its field.
  const sendAddressError = error instanceof ApiError && ADDRESS_ERRORS.has(error.code) ? errorText(error, t) : null;
  const addressError = toProblem ?? (checkedProblem ? null : sendAddressError);
  const uploading = uploads.some((u) => !u.attachment && !u.error);
  const failedUpload = uploads.some((u) => u.error);
  const blocked = uploading || failedUpload || (opensNew && aliasProblem(alias));

  async function send() {
    if (blocked) return;
    setSending(true);
    setError(null);
    try {
      await Promise.all([checks.check([to], start.replyTo), checks.check(splitAddresses(cc))]);
      if (request.mode === "forward") {
        await sdk.forward(request.mail.mail_id, { to: to.trim(), cc: splitAddresses(cc), body, subject });
      } else {
        await sdk.send({
          to: to.trim(),
          cc: splitAddresses(cc),
          subject,
          body,
          reply_to: start.replyTo,
          session_alias: sessionAlias,
          budget: asksBudget ? parseBudget(budget) : null,
          attachment_ids: uploads.flatMap((u) => (u.attachment ? [u.attachment.attachment_id] : [])),
        });
        await draft.discard();
      }
      void queryClient.invalidateQueries();
      closeCompose();
    } catch (cause) {
      setError(cause);
    } finally {
      setSending(false);
    }
  }

  const title = t(`compose.title.${request.mode}`);
  return (
    <Modal open onOpenChange={(open) => !open && closeCompose()} title={title} wide>
      <form
        className="flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
            e.preventDefault();
            void send();
          }
        }}
      >
        <AddressField
          label={t("compose.to")}
          value={to}
          onChange={setTo}
          required
          autoFocus={!to}
          error={addressError}
          onLeave={() => void checks.check([to], start.replyTo)}
          description={(id) => (reach ? <AddressReachLine id={id} reach={reach} address={to.trim()} /> : null)}
        />
        <OutsideReplyNote outside={start.outside} nobody={!start.to} />
        <AddressField
          label={t("compose.cc")}
          value={cc}
          onChange={setCc}
          multiple
          placeholder={t("compose.ccHint")}
          problems={ccProblems}
          onLeave={() => void checks.check(splitAddresses(cc))}
        />
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.subject} className="text-sm font-medium">
            {t("compose.subject")}
          </label>
          <input
            id={ids.subject}
            value={subject}
            onChange={(e) => setSubject(e.target.value)}
            autoFocus={Boolean(to)}
            maxLength={MAX_SUBJECT}
            aria-describedby={nearLimit(subject.length, MAX_SUBJECT) ? `${ids.subject}-count` : undefined}
            className="min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
          />
          <LengthCount id={`${ids.subject}-count`} length={subject.length} max={MAX_SUBJECT} />
        </div>
        {opensNew ? <AliasField value={alias} onChange={setAlias} subject={subject} to={to} /> : null}
        <MarkdownEditor value={body} onChange={setBody} />
        {asksBudget ? (
          <div className="flex flex-wrap items-center gap-2">
            <label htmlFor={ids.budget} className="text-sm font-medium">
              {t("compose.budget")}
            </label>
            <input
              id={ids.budget}
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
              placeholder={t("compose.budgetDefault")}
              list={`${ids.budget}-choices`}
              className="min-h-10 w-40 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
            />
            <datalist id={`${ids.budget}-choices`}>
              <option value="5" />
              <option value="20" />
              <option value="unlimited" />
            </datalist>
            <span className="text-xs text-muted">{t("compose.budgetHint")}</span>
          </div>
        ) : null}
        {forwarding ? (
          <p className="text-sm text-muted">{t("compose.forwardHint")}</p>
        ) : (
          <AttachmentPicker uploads={uploads} onChange={setUploads} maxBytes={limits.data?.max_attachment_bytes ?? null} />
        )}
        {error && !sendAddressError ? <ErrorNote error={error} /> : null}
        {failedUpload ? (
          <p id={ids.blocked} className="text-sm text-danger">
            {t("compose.attachBlocked")}
          </p>
        ) : null}
        <div className="flex flex-wrap items-center gap-2">
          <Button
            type="submit"
            variant="primary"
            disabled={sending || blocked || !to.trim()}
            aria-describedby={failedUpload ? ids.blocked : undefined}
          >
            {sending ? t("compose.sending") : t("compose.send")}
          </Button>
          {!forwarding ? (
            <Button
              variant="ghost"
              onClick={() => {
                void draft.discard().then(() => queryClient.invalidateQueries({ queryKey: ["drafts"] }));
                closeCompose();
              }}
            >
              {t("compose.discard")}
            </Button>
          ) : null}
          <span className="ml-auto text-xs text-muted" aria-live="polite">
            {draft.state === "saving" ? t("compose.draftSaving") : null}
            {draft.state === "saved" ? t("compose.draftSaved") : null}
            {draft.state === "failed" ? t("compose.draftFailed") : null}
          </span>
        </div>
      </form>
    </Modal>
  );
}
