"""The composition root: settings, the store, the servers on one loop, the `agentmail` CLI.

The only package that imports every other one; nothing imports it.
Modules: gateway/README.md.
"""
