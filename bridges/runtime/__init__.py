"""The bridge runtime: the delivery ledger, pending permissions, grants and the
per-conversation worker pool around a `Platform` (docs/bridges.md). It talks to
the gateway only through `bridges.client`."""
