/**
 * "Outside addresses" on the Account page: my mailboxes outside the gateway, where
 * permission requests and questions (and, if I choose, other mail) are also sent, and
 * the only outside senders my replies are taken from. An address counts once the
 * 6-digit code mailed to it comes back (api/routes/external_addresses.py).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";
import { accountKeys, externalAddressesQuery } from "../api/queries";
import { useAddressWords } from "./addressWords";
import { OutsideAddressRow } from "./OutsideAddressRow";

/** At most this many addresses each (core/replies/addresses.py MAX_ADDRESSES). */
const MAX_ADDRESSES = 5;

export function OutsideAddresses() {
  const { t } = useTranslation();
  const ids = { title: useId(), input: useId() };
  const queryClient = useQueryClient();
  const addresses = useQuery(externalAddressesQuery());
  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.externalAddresses });
  const [text, setText] = useState("");
  const words = useAddressWords();
  const add = useMutation({
    mutationFn: () => sdk.addExternalAddress(text.trim()),
    onSuccess: () => {
      setText("");
      void refresh();
    },
  });
  const list = addresses.data ?? [];
  const full = list.length >= MAX_ADDRESSES;
  return (
    <section className="flex flex-col gap-3" aria-labelledby={ids.title}>
      <h2 id={ids.title} className="text-lg font-semibold">
        {t("externalAddresses.title")}
      </h2>
      <p className="text-sm text-muted">{t("externalAddresses.hint", { max: MAX_ADDRESSES })}</p>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) add.mutate();
        }}
      >
        <div className="flex min-w-0 flex-1 flex-col gap-1">
          <label htmlFor={ids.input} className="text-sm">
            {t("externalAddresses.address")}
          </label>
          <input
            id={ids.input}
            type="email"
            inputMode="email"
            autoComplete="email"
            maxLength={254}
            placeholder="me@example.com"
            className="min-h-10 w-full min-w-0 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <Button type="submit" variant="primary" disabled={add.isPending || full || !text.trim()}>
          {t("externalAddresses.add")}
        </Button>
      </form>
      {full ? <p className="text-sm text-muted">{t("externalAddresses.full", { max: MAX_ADDRESSES })}</p> : null}
      <ErrorNote error={add.error} words={words.add} />
      {addresses.isError ? <ErrorNote error={addresses.error} /> : null}
      {addresses.isSuccess && list.length === 0 ? <p className="text-sm text-muted">{t("externalAddresses.none")}</p> : null}
      {list.length > 0 ? (
        <ul className="flex flex-col divide-y divide-line">
          {list.map((address) => (
            <OutsideAddressRow key={address.address_id} address={address} onChange={() => void refresh()} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
