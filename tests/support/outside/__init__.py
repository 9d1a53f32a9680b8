"""The outside world: real mail hosts beyond the gateway, offline, for tests.

Postfix (the outside MTA and the gateway's smarthost), Dovecot (a human's mailbox at
`alice@outside.test`) and an authoritative DNS server for the test zones, each on a
host of its own: a network namespace on a private network with no route out. Tests
take it through the `outside_world` fixture (fixture.py) and mark themselves
`outside`; docs/testing.md, "The outside world", says what runs where and how to debug.
"""

from tests.support.outside import netns
from tests.support.outside.world import OutsideWorld, running_outside_world, unreachable

__all__ = ["OutsideWorld", "netns", "running_outside_world", "unreachable"]
