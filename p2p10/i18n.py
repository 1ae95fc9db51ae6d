"""The program's languages: English (the text in the code), German and Spanish.

Strings are marked in the code with the gettext functions of this module and translated from the
catalogues in ``p2p10/locale/<lang>/LC_MESSAGES/p2p10.mo``, compiled from the ``.po`` files
beside them when the package is installed::

    from p2p10.i18n import _, ngettext, pgettext, N_

    print(_("Your turn"))
    print(ngettext("{n} card left", "{n} cards left", n).format(n=n))
    print(pgettext("card colour", "red"))      # a short word that needs its context
    TITLES = (N_("Draw"), N_("Discard"))        # marked here, translated with _() when shown

The functions look the translation up when they are called, so a module may import them when it
is imported and still follow a later :func:`set_language`. Until then the program speaks English.
Card notation (R7 B12 G1 Y9 W S) is never translated; see ``p2p10/locale/GLOSSARY.md``.

``python -m p2p10.i18n extract`` refreshes the template and the ``.po`` files from the code and
``python -m p2p10.i18n compile`` compiles them for a working tree (both need Babel, a test
dependency); the README's section on translations has the whole recipe.

Importing this module is cheap: gettext (which argparse imports anyway) and the error types.
"""

from __future__ import annotations

import gettext as _gettext
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from p2p10.errors import P2P10Error

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

DOMAIN = "p2p10"
LANGUAGES = ("en", "de", "es")
"""The languages the program speaks, by their ISO 639-1 codes; English is the source language."""
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""Where the catalogues are: ``<lang>/LC_MESSAGES/p2p10.po`` and the ``.mo`` built from it."""
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The variables that name the user's language, in gettext's order: the first one set is used."""

_translation: _gettext.NullTranslations = _gettext.NullTranslations()
_language = "en"
_loaded: dict[str, _gettext.NullTranslations] = {}


class UnknownLanguage(P2P10Error, ValueError):
    """A language the program does not speak, asked for by name (``--lang``)."""

    def __init__(self, given: str) -> None:
        super().__init__(_("unknown language {given!r} (choose one of {choices})").format(
            given=given, choices=", ".join(LANGUAGES)))
        self.given = given


def gettext(message: str) -> str:
    """``message`` in the current language (itself when the catalogue has no translation)."""
    return _translation.gettext(message)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for the count ``n`` in the current language."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same words elsewhere by
    ``context`` (for short words such as a colour or a button: ``pgettext("button", "Draw")``)."""
    return _translation.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """:func:`ngettext` with a ``context`` as for :func:`pgettext`."""
    return _translation.npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """``message`` itself, marked for the catalogues: for text kept in a constant and
    translated with ``_()`` where it is shown."""
    return message


def current_language() -> str:
    """The language set last by :func:`set_language` ("en" before)."""
    return _language


def language_code(name: str) -> str:
    """The bare language of a locale name: "de_DE.UTF-8" -> "de", "es-419" -> "es", "C" -> "c"."""
    return name.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()


def choose_language(env: Mapping[str, str], override: str | None = None) -> str:
    """The language to speak: ``override`` when given (it must be one of :data:`LANGUAGES`, or
    :class:`UnknownLanguage` is raised), else the first of LANGUAGE, LC_ALL, LC_MESSAGES and LANG
    that is set, as gettext reads them: LANGUAGE may list several ("fr:de:en"), and the first the
    program speaks wins. A locale it does not speak, "C" and "POSIX" all give English."""
    if override is not None:
        return _known(override)
    for variable in ENVIRONMENT:
        value = env.get(variable, "")
        if value:
            for name in value.split(":"):
                code = language_code(name)
                if code in LANGUAGES:
                    return code
                if code in ("c", "posix"):
                    return "en"
            return "en"
    return "en"


def explicit_language(env: Mapping[str, str], override: str | None = None) -> str | None:
    """The language the user asked for: ``override`` (checked as :func:`choose_language` does),
    else the first of LANGUAGE, LC_ALL, LC_MESSAGES and LANG that names one this program speaks;
    None when none does (unset, "C", "POSIX" or another language): then a front end may follow
    another choice, such as a browser's."""
    if override is not None:
        return _known(override)
    for variable in ENVIRONMENT:
        for name in env.get(variable, "").split(":"):
            code = language_code(name) if name else ""
            if code in LANGUAGES:
                return code
    return None


def set_language(lang: str) -> None:
    """Speak ``lang`` (one of :data:`LANGUAGES`) from now on, in the whole process, argparse's
    own words ("usage:", "options", its error messages) included. A catalogue that was not built
    (a working tree never installed) leaves English."""
    global _translation, _language
    lang = _known(lang)
    _translation = _load(lang)
    _language = lang
    _translate_argparse()


def _known(lang: str) -> str:
    code = lang.strip().lower()
    if code not in LANGUAGES:
        raise UnknownLanguage(lang)
    return code


def _load(lang: str) -> _gettext.NullTranslations:
    if lang not in _loaded:
        mo = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
        if lang == "en" or not mo.is_file():
            _loaded[lang] = _gettext.NullTranslations()
        else:
            with mo.open("rb") as file:
                _loaded[lang] = _gettext.GNUTranslations(file)
    return _loaded[lang]


def _translate_argparse() -> None:
    """argparse translates its words with ``from gettext import gettext as _, ngettext``, that is
    from gettext's default domain in the environment's language: point those two names at this
    module's functions, so that they follow :func:`set_language` and find argparse's words in this
    program's catalogues (``extract`` puts them there)."""
    import argparse

    for name, function in (("_", gettext), ("ngettext", ngettext)):
        if callable(getattr(argparse, name, None)):
            setattr(argparse, name, function)


# The developers' tools: `python -m p2p10.i18n extract|compile`. They need Babel (the `test` extra).

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("p2p10", "protocol", "cli")
"""The packages whose strings go into the catalogues."""
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
ARGPARSE = "stdlib/argparse.py"
"""The location written in the catalogues for argparse's words."""
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3), "N_": None}
"""The marking functions, as Babel's extractor wants them."""
COMMENT_TAG = "TRANSLATORS:"
"""A comment starting with this, just above a marked string, goes into the catalogues for the
translators."""


def po_file(lang: str) -> Path:
    """The ``.po`` source of ``lang``'s catalogue."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def code_messages() -> Iterator[tuple[str | tuple[str, ...], str | None, str, int, list[str]]]:
    """Every marked string in :data:`SOURCES`: (message or (singular, plural), context, file,
    line, translator comments)."""
    from babel.messages.extract import extract_from_dir

    for top in SOURCES:
        found = extract_from_dir(str(ROOT / top), method_map=[("**.py", "python")],
                                 keywords=KEYWORDS, comment_tags=(COMMENT_TAG,),
                                 strip_comment_tags=True)
        for filename, lineno, message, comments, context in found:
            yield message, context, f"{top}/{filename}", lineno, comments


def argparse_messages() -> Iterator[str | tuple[str, ...]]:
    """The words of the running Python's argparse."""
    import argparse

    from babel.messages.extract import extract

    with open(argparse.__file__, "rb") as source:
        for _lineno, message, _comments, _context in extract("python", source, keywords=KEYWORDS):
            yield message


def extract() -> list[Path]:
    """Write the template from the code (and argparse: its words from every Python version this
    was run on are kept), then bring each ``.po`` up to it: new strings come untranslated, or
    fuzzy with the translation of a close old one, and strings gone from the code are dropped.
    Returns the files written."""
    from babel.messages.catalog import Catalog

    from p2p10 import __version__

    template = Catalog(project=DOMAIN, version=__version__, copyright_holder="the p2p10 authors",
                       charset="utf-8", fuzzy=False)
    for message, context, filename, lineno, comments in code_messages():
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    kept: list[str | tuple[str, ...]] = [
        m.id if isinstance(m.id, str) else tuple(m.id)
        for m in _read(TEMPLATE) if any(f == ARGPARSE for f, _n in m.locations)]
    for message in [*kept, *argparse_messages()]:
        found = template.get(message if isinstance(message, str) else message[0])
        if found is None:
            template.add(message, None, [(ARGPARSE, 0)],
                         auto_comments=["Python's argparse: the words of the command line's help."])
        elif all(f != ARGPARSE for f, _n in found.locations):
            found.locations.append((ARGPARSE, 0))
    written = [TEMPLATE] if _write(TEMPLATE, template) else []
    for lang in LANGUAGES[1:]:
        catalog = _read(po_file(lang), lang)
        catalog.update(template, update_header_comment=False)
        if _write(po_file(lang), catalog):
            written.append(po_file(lang))
    return written


def compile_catalogues(languages: Iterable[str] = LANGUAGES[1:]) -> list[Path]:
    """Compile each ``.po`` to the ``.mo`` beside it (what the install does in the build);
    returns the files written."""
    from babel.messages.mofile import write_mo

    written = []
    for lang in languages:
        mo = po_file(lang).with_suffix(".mo")
        with mo.open("wb") as out:
            write_mo(out, _read(po_file(lang), lang))
        written.append(mo)
    _loaded.clear()
    return written


def _read(path: Path, lang: str | None = None) -> Catalog:
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    if not path.is_file():
        from p2p10 import __version__

        catalog = Catalog(locale=lang, project=DOMAIN, version=__version__,
                          copyright_holder="the p2p10 authors", charset="utf-8", fuzzy=False)
        # gettext's two forms (one, other) rather than CLDR's three for Spanish (one, many, other).
        catalog.mime_headers = [("Plural-Forms", "nplurals=2; plural=(n != 1);")]
        return catalog
    with path.open("rb") as file:
        return read_po(file, locale=lang, domain=DOMAIN)


def _write(path: Path, catalog: Catalog) -> bool:
    """Write ``catalog`` in a stable form (sorted, no line numbers, no obsolete entries) unless
    only its dates would change; True if the file was written."""
    from io import BytesIO

    from babel.messages.pofile import write_po

    out = BytesIO()
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False, ignore_obsolete=True)
    new = out.getvalue()
    old = path.read_bytes() if path.is_file() else b""
    if _undated(new) == _undated(old):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(new)
    return True


def _undated(po: bytes) -> list[bytes]:
    return [line for line in po.splitlines()
            if not line.startswith((b'"POT-Creation-Date:', b'"PO-Revision-Date:'))]


def _main(argv: Sequence[str]) -> int:
    commands = {"extract": extract, "compile": compile_catalogues}
    if len(argv) != 1 or argv[0] not in commands:
        print("usage: python -m p2p10.i18n extract|compile\n"
              "  extract  refresh p2p10/locale/p2p10.pot and the .po files from the code\n"
              "  compile  compile the .po files to .mo in the working tree", file=sys.stderr)
        return 2
    for path in commands[argv[0]]():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
