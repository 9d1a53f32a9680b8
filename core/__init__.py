"""The domain of AgentMail: addresses, the store, the mail service, auth and events.

`core` imports no adapter (api, smtp_in, imap_view, bridges, gateway)."""
