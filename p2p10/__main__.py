"""``python -m p2p10``: the same as the ``p2p10`` command, for a person who types the
package's name.

The command line lives two layers up (cli -> protocol -> p2p10) and the core does not import
it: this runs whatever the installed distribution declares as its ``p2p10`` console script,
found in the package metadata, as the script on the PATH does. ``python -m cli`` runs the
command line directly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, distribution

from p2p10.i18n import _, choose_language, set_language


def installed_command() -> Callable[[], int] | None:
    """The ``p2p10`` console script of the installed distribution, or None when it is not
    installed (a source tree on the path)."""
    try:
        scripts = distribution("p2p10").entry_points.select(group="console_scripts", name="p2p10")
    except PackageNotFoundError:
        return None
    for script in scripts:
        command: Callable[[], int] = script.load()
        return command
    return None


def main() -> int:
    """Run the ``p2p10`` command, or say how to when it is not installed."""
    command = installed_command()
    if command is None:
        set_language(choose_language(os.environ))
        print(_("p2p10 is not installed here: run 'python -m cli' from the source tree, "
                "or install it with 'pip install .'"), file=sys.stderr)
        return 2
    return command()


if __name__ == "__main__":
    raise SystemExit(main())
