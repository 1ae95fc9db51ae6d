"""The front end: the ``p2p10`` command and the terminal table."""

from p2p10.errors import P2P10Error


class UsageError(P2P10Error):
    """A command line that cannot be run as given."""
