"""What ``p2p10 play`` remembers between launches: the settings of the last new game started
(the player's name, how many bots, their level, the rule options), kept in
``$XDG_CONFIG_HOME/p2p10/settings.json`` (``~/.config/p2p10/settings.json`` by default), and
the name a player gets when they give none: their login name, as on the LAN.

The file is JSON, ``{"version": 1, "name": ..., "bots": ..., "level": ..., "options": [...]}``,
written whole (to a file beside it, renamed over it) and readable by its owner only. A file
that is missing gives the defaults; one that is damaged, or holds a setting this program would
refuse, gives the defaults too, with a notice that names the file and says what is wrong: it
never stops the game from starting.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import dataclass
from pathlib import Path

from p2p10.errors import P2P10Error
from p2p10.i18n import _, pgettext
from p2p10.rules import RuleSet
from p2p10.table import MAX_NAME
from protocol import config_home

LEVELS = ("easy", "normal", "hard")
SETTINGS_FILE = "settings.json"
SETTINGS_VERSION = 1
MAX_BOTS = 5


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a new game with these settings (the flags ``--name --bots --level -o``)."""

    name: str = "You"
    bots: int = 3
    level: str = "normal"
    options: tuple[str, ...] = ()


class BadSettings(P2P10Error):
    """A settings file that cannot be read or holds something this program would refuse."""


def settings_path() -> Path:
    """Where the last settings are kept: ``settings.json`` in :func:`protocol.config_home`."""
    return config_home() / SETTINGS_FILE


def valid_name(name: str) -> bool:
    """Whether ``name`` can sit at a table: 1 to ``MAX_NAME`` printable characters."""
    return 0 < len(name) <= MAX_NAME and name.isprintable()


def login_name(fallback: str) -> str:
    """The user's login name, cut to a table's longest name; ``fallback`` when there is no
    usable one (no passwd entry, as in some containers, or a name that cannot be printed)."""
    try:
        login = getpass.getuser().strip()
    except (KeyError, OSError):
        return fallback
    return login[:MAX_NAME] if login and login.isprintable() else fallback


def default_name() -> str:
    """The name of a player who gives none: the login name, else the word for "you"."""
    # The fallback is the word for "you" in the player's language (the narrator tells a seat
    # named so as "Seat 1 (Du)" to anybody else, p2p10.narrate); once chosen it is just a name,
    # written into the signed sit-down like any other.
    # TRANSLATORS: the player's name at the table when none is given and the login name cannot
    # be used: the word for "you", as in the narrator's "you" (subject), capitalised (at most 32
    # characters).
    return login_name(pgettext("default name", "You"))


def defaults() -> NewGame:
    """The settings of a first game: the login name, 3 bots of level normal, the full game."""
    return NewGame(name=default_name())


def parse_settings(text: str) -> NewGame:
    """The settings in ``text`` (the file's JSON); :class:`BadSettings` saying what is wrong."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise BadSettings(_("it is not JSON")) from None
    if not isinstance(data, dict) or data.get("version") != SETTINGS_VERSION:
        raise BadSettings(_("it is not a settings file of version {version}").format(
            version=SETTINGS_VERSION))
    name, bots, level, options = (data.get(key) for key in ("name", "bots", "level", "options"))
    if not isinstance(name, str) or not valid_name(name):
        raise BadSettings(_("the name is not 1 to {n} printable characters").format(n=MAX_NAME))
    if isinstance(bots, bool) or not isinstance(bots, int) or not 1 <= bots <= MAX_BOTS:
        raise BadSettings(_("the number of bots is not 1 to {n}").format(n=MAX_BOTS))
    if level not in LEVELS:
        raise BadSettings(_("the bots' level is not one of {levels}").format(levels=", ".join(LEVELS)))
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise BadSettings(_("the rule options are not a list of words"))
    try:
        RuleSet.parse(options)
    except P2P10Error as err:
        raise BadSettings(str(err)) from None
    return NewGame(name, bots, level, tuple(options))


def load(path: Path | None = None) -> tuple[NewGame, str | None]:
    """The settings of the last new game (from ``path``, :func:`settings_path` by default), and
    a notice for the player if the file could not be used: then the settings are
    :func:`defaults`. No file (the first launch) is no notice."""
    path = path or settings_path()
    try:
        return parse_settings(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return defaults(), None
    except (OSError, UnicodeDecodeError) as err:
        # TRANSLATORS: why the settings file cannot be read: it holds something else than text.
        reason = err.strerror if isinstance(err, OSError) and err.strerror else _("it is not text")
    except BadSettings as err:
        reason = str(err)
    # TRANSLATORS: {path} is the settings file, {reason} what is wrong with it ("it is not JSON").
    return defaults(), _("{path} was not used ({reason}): the default settings instead").format(
        path=path, reason=reason)


def save(settings: NewGame, path: Path | None = None) -> str | None:
    """Keep ``settings`` as the last ones (in ``path``, :func:`settings_path` by default); a
    notice for the player if they cannot be written (the game goes on without them)."""
    # Imported here: the file helpers sit with the peer's files, which load the cryptography
    # that only a game needs.
    from protocol.storage import write_private

    path = path or settings_path()
    text = json.dumps({"version": SETTINGS_VERSION, "name": settings.name, "bots": settings.bots,
                       "level": settings.level, "options": list(settings.options)},
                      ensure_ascii=False, indent=1)
    try:
        write_private(path, (text + "\n").encode("utf-8"))
    except OSError as err:
        return _("cannot keep your settings in {path}: {reason}").format(
            path=path, reason=err.strerror or err)
    return None
