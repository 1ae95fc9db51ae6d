"""``python -m cli``: the ``p2p10`` command, for a source tree that is not installed."""

from cli.main import main

raise SystemExit(main())
