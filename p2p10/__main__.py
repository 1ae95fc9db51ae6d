"""``python -m p2p10``: the same as the ``p2p10`` command.

The one place the core names the front end: an entry point, imported only when run.
"""

from cli.main import main

raise SystemExit(main())
