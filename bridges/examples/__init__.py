"""Examples of agents on the gateway's public protocol; `remote_agent.py` uses the
standard library alone, so it can be copied to any host and run there."""
