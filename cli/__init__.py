"""The front end: the ``p2p10`` command and, later, the terminal table."""
