"""The translations: the catalogues against the code, and the language chosen and spoken.

When one of the catalogue checks fails after a change to the code's strings: run
``python -m p2p10.i18n extract``, translate what it left empty or fuzzy in
``p2p10/locale/{de,es}/LC_MESSAGES/p2p10.po``, then ``python -m p2p10.i18n compile``."""

from __future__ import annotations

import ast
import contextlib
import gettext
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from p2p10 import i18n
from p2p10.i18n import UnknownLanguage, choose_language, set_language

TRANSLATED = i18n.LANGUAGES[1:]
FIX = "run `python -m p2p10.i18n extract`, translate, then `python -m p2p10.i18n compile`"


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    set_language("en")


def catalogue(lang: str) -> Catalog:
    with i18n.po_file(lang).open("rb") as file:
        return read_po(file, locale=lang)


def key(message_id: str | tuple[str, ...] | list[str]) -> str | tuple[str, ...]:
    return message_id if isinstance(message_id, str) else tuple(message_id)


def entries(lang: str) -> list[Message]:
    return [m for m in catalogue(lang) if m.id]


def strings(message: Message) -> list[str]:
    return [message.string] if isinstance(message.string, str) else list(message.string)


def code_keys() -> dict[tuple[str | tuple[str, ...], str | None], str]:
    return {(key(message), context): f"{filename}:{line}"
            for message, context, filename, line, _comments in i18n.code_messages()}


# The catalogues


def test_every_catalogue_compiles_and_gettext_reads_it() -> None:
    for lang in TRANSLATED:
        cat = catalogue(lang)
        assert cat.num_plurals == 2 and cat.plural_expr == "(n != 1)", lang
        problems = [(m.id, errors) for m, errors in cat.check()]
        assert problems == [], f"{lang}: {problems}"
        out = io.BytesIO()
        write_mo(out, cat)
        out.seek(0)
        assert isinstance(gettext.GNUTranslations(out).gettext("options"), str)


def test_every_marked_string_is_in_the_template_and_translated_in_every_language() -> None:
    wanted = code_keys()
    assert wanted, "the extraction found no marked string at all"
    with i18n.TEMPLATE.open("rb") as file:
        template = {(key(m.id), m.context) for m in read_po(file) if m.id}
    missing = [where for k, where in wanted.items() if k not in template]
    assert missing == [], f"not in p2p10/locale/p2p10.pot ({FIX}): {missing}"
    for lang in TRANSLATED:
        known = {(key(m.id), m.context): m for m in entries(lang)}
        untranslated = [f"{where} {k[0]!r}" for k, where in wanted.items()
                        if k not in known or known[k].fuzzy or not all(strings(known[k]))]
        assert untranslated == [], f"{lang}: missing, empty or fuzzy ({FIX}): {untranslated}"


def test_argparse_speaks_every_language_too() -> None:
    core = ["usage: ", "options", "positional arguments", "show this help message and exit",
            "%(prog)s: error: %(message)s\n", "the following arguments are required: %s",
            "unrecognized arguments: %s", "expected one argument"]
    for lang in TRANSLATED:
        known = {key(m.id): m for m in entries(lang) if not m.fuzzy and all(strings(m))}
        missing = [m for m in core if m not in known]
        assert missing == [], f"{lang}: argparse's words are missing ({FIX}): {missing}"
        # The rest of this Python's argparse words: a newer Python may word a rare message anew,
        # and gettext then shows it in English; only the words argparse has had since 3.11 are
        # required, so that the suite passes on any Python the project supports.
        if sys.version_info[:2] == (3, 11):
            rest = [m for m in map(key, i18n.argparse_messages()) if m not in known]
            assert rest == [], f"{lang}: argparse's words of Python 3.11 are missing ({FIX}): {rest}"


PLACEHOLDER = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]"
                         r"|\{[^{}]*\}")
CARD = re.compile(r"\b(?:[RBGY](?:1[0-2]|[1-9])|W|S)\b")


def placeholders(text: str, percent: bool = True) -> list[str]:
    """The placeholders of ``text``: ``{name}`` always; ``%s``/``%(name)s`` only in a message
    that %-formatting fills (a plain "95% CI" has none)."""
    found = PLACEHOLDER.findall(text.replace("%%", "").replace("{{", "").replace("}}", ""))
    return sorted(p for p in found if percent or p.startswith("{"))


def test_translations_keep_the_placeholders_the_card_notation_and_the_newlines() -> None:
    for lang in TRANSLATED:
        for m in entries(lang):
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            for i, text in enumerate(strings(m)):
                if not text:
                    continue
                source = ids[min(i, len(ids) - 1)]
                percent = "python-format" in m.flags
                allowed = [placeholders(source, percent)]
                if i == 0:
                    allowed.append(placeholders(ids[0], percent))
                where = f"{lang}: {m.id!r} -> {text!r}"
                assert placeholders(text, percent) in allowed, f"placeholders differ in {where}"
                assert sorted(CARD.findall(text)) == sorted(CARD.findall(source)), \
                    f"card notation changed in {where}"
                assert text.endswith("\n") == source.endswith("\n"), f"final newline in {where}"
                assert text.startswith("\n") == source.startswith("\n"), f"first newline in {where}"


def test_the_built_catalogues_are_those_of_the_po_files() -> None:
    for lang in TRANSLATED:
        mo = i18n.po_file(lang).with_suffix(".mo")
        assert mo.is_file(), f"{mo} was not built: `pip install -e .` or `python -m p2p10.i18n compile`"
        with mo.open("rb") as file:
            built = gettext.GNUTranslations(file)
        for m in entries(lang):
            if m.fuzzy or not all(strings(m)):
                continue
            if isinstance(m.id, str):
                got = [built.pgettext(m.context, m.id) if m.context else built.gettext(m.id)]
            else:
                got = [built.npgettext(m.context, m.id[0], m.id[1], n) if m.context
                       else built.ngettext(m.id[0], m.id[1], n) for n in (1, 2)]
            assert got == strings(m), \
                f"{mo} is older than its .po: run `python -m p2p10.i18n compile` ({m.id!r})"


def test_no_function_that_translates_uses_underscore_as_a_throwaway_name() -> None:
    # `host, _, port = ...` in a function makes `_` a local there, and `_("...")` a crash.
    bad = []
    for top in i18n.SOURCES:
        for path in sorted((i18n.ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imports = any(isinstance(node, ast.ImportFrom) and node.module == "p2p10.i18n"
                          and any(alias.name == "_" and alias.asname is None for alias in node.names)
                          for node in ast.walk(tree))
            if not imports:
                continue
            bad += [f"{path.relative_to(i18n.ROOT)}:{node.lineno}" for node in ast.walk(tree)
                    if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store)]
    assert bad == [], f"`_` assigned where it is the translation function (rename it, e.g. `_x`): {bad}"


# Choosing and speaking a language


@pytest.mark.parametrize(("env", "override", "lang"), [
    ({}, None, "en"),
    ({"LANG": "de_DE.UTF-8"}, None, "de"),
    ({"LANG": "es_MX.utf8"}, None, "es"),
    ({"LANG": "de_AT@euro"}, None, "de"),
    ({"LANG": "es-419"}, None, "es"),
    ({"LANG": "fr_FR.UTF-8"}, None, "en"),
    ({"LANG": "C"}, None, "en"),
    ({"LANG": "C.UTF-8"}, None, "en"),
    ({"LANG": "POSIX"}, None, "en"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, None, "es"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES.UTF-8", "LC_ALL": "en_GB.UTF-8"}, None, "en"),
    ({"LANG": "de_DE.UTF-8", "LC_ALL": "", "LANGUAGE": ""}, None, "de"),  # empty is unset
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "es"}, None, "es"),
    ({"LANG": "de_DE.UTF-8", "LANGUAGE": "fr:es:de"}, None, "es"),  # the first spoken one
    ({"LANG": "de_DE.UTF-8", "LANGUAGE": "fr"}, None, "en"),  # as gettext: LANG is not read then
    ({"LANG": "de_DE.UTF-8"}, "es", "es"),
    ({"LANGUAGE": "de"}, "en", "en"),
    ({}, "DE", "de"),
])
def test_choose_language(env: dict[str, str], override: str | None, lang: str) -> None:
    assert choose_language(env, override) == lang


def test_an_unknown_language_is_a_typed_error_naming_the_languages() -> None:
    for given in ("fr", "de_DE", "", "english"):
        with pytest.raises(UnknownLanguage) as raised:
            choose_language({"LANG": "de_DE.UTF-8"}, given)
        assert "en, de, es" in str(raised.value) and raised.value.given == given
        with pytest.raises(UnknownLanguage):
            set_language(given)
    assert i18n.current_language() == "en"


def test_set_language_switches_what_an_imported_function_returns() -> None:
    from p2p10.i18n import _, ngettext, pgettext

    assert _("options") == "options"
    set_language("de")
    assert i18n.current_language() == "de"
    assert _("options") == "Optionen"
    assert ngettext("expected %s argument", "expected %s arguments", 1) == "erwartet %s Argument"
    assert ngettext("expected %s argument", "expected %s arguments", 3) == "erwartet %s Argumente"
    assert _("not a string in any catalogue") == "not a string in any catalogue"
    assert pgettext("nowhere", "options") == "options"  # another context is another string
    set_language("es")
    assert _("options") == "opciones"
    assert ngettext("expected %s argument", "expected %s arguments", 2) == "se esperaban %s argumentos"
    set_language("en")
    assert _("options") == "options"
    assert ngettext("expected %s argument", "expected %s arguments", 2) == "expected %s arguments"


def test_set_language_makes_argparse_speak_it() -> None:
    import argparse

    def help_and_error() -> tuple[str, str]:
        parser = argparse.ArgumentParser(prog="x")
        parser.add_argument("n")
        err = io.StringIO()
        with pytest.raises(SystemExit), contextlib.redirect_stderr(err):
            parser.parse_args([])
        return parser.format_help(), err.getvalue()

    set_language("de")
    text, error = help_and_error()
    assert text.startswith("Aufruf: x") and "Positionsargumente:" in text
    assert "diese Hilfe zeigen und beenden" in text
    assert error.endswith("x: Fehler: folgende Argumente sind erforderlich: n\n")
    set_language("es")
    text, error = help_and_error()
    assert text.startswith("uso: x") and "opciones:" in text
    set_language("en")
    text, error = help_and_error()
    assert text.startswith("usage: x") and "show this help message and exit" in text


# The command line


def p2p10(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in i18n.ENVIRONMENT}
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=60, check=False, env={**clean, **env})


def test_lang_chooses_the_language_of_the_help() -> None:
    de = p2p10("--lang", "de", "--help", LANG="es_ES.UTF-8")
    assert de.returncode == 0
    assert de.stdout.startswith("Aufruf: p2p10 ")
    assert "Phase 10 im lokalen Netz, ohne Server und ohne vertrauenswürdigen Geber." in de.stdout
    assert "Versionsnummer des Programms zeigen und beenden" in de.stdout
    es = p2p10("--lang=es", "--help", LANGUAGE="de")
    assert es.stdout.startswith("uso: p2p10 ") and "el idioma del programa" in es.stdout
    en = p2p10("--lang", "en", "--help", LANG="de_DE.UTF-8")
    assert en.stdout.startswith("usage: p2p10 ") and "--lang {en,de,es}" in en.stdout
    assert "Phase 10 on a LAN with no server and no trusted dealer." in en.stdout


def test_the_environment_chooses_the_language_when_lang_is_not_given() -> None:
    assert p2p10("--help", LANG="de_DE.UTF-8").stdout.startswith("Aufruf: ")
    assert p2p10("--help", LANGUAGE="es:de", LANG="de_DE.UTF-8").stdout.startswith("uso: ")
    assert p2p10("--help", LANG="C.UTF-8").stdout.startswith("usage: ")
    assert p2p10("--help").stdout.startswith("usage: ")
    # a subcommand's help and argparse's errors follow as well
    assert p2p10("rules", "--help", LANG="es_ES.UTF-8").stdout.startswith("uso: p2p10 rules")
    bad = p2p10("--lang", "de", "no-such-command")
    assert bad.returncode == 2 and "p2p10: Fehler: Argument BEFEHL: ungültige Wahl: " in bad.stderr


def test_an_unknown_lang_exits_2_naming_the_languages() -> None:
    done = p2p10("--lang", "fr", "rules", "phases")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "p2p10: unknown language 'fr' (choose one of en, de, es)\n"
    told = p2p10("--lang=xx", "--help", LANG="de_DE.UTF-8")  # in the environment's language
    assert told.returncode == 2 and "unbekannte Sprache 'xx'" in told.stderr and "en, de, es" in told.stderr


def test_the_module_is_light() -> None:
    probe = ("import sys, p2p10.i18n as i; i.set_language('de'); "
             "print(*sorted(m for m in sys.modules if m.split('.')[0] in ('babel', 'p2p10', 'cli')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == ["p2p10", "p2p10.errors", "p2p10.i18n"]


def test_package_data_ships_the_sources_of_the_catalogues() -> None:
    import tomllib

    with (i18n.ROOT / "pyproject.toml").open("rb") as file:
        data = tomllib.load(file)["tool"]["setuptools"]["package-data"]["p2p10"]
    package = i18n.ROOT / "p2p10"
    shipped = {path for pattern in data for path in package.glob(pattern)}
    assert i18n.TEMPLATE in shipped and (i18n.LOCALE_DIR / "GLOSSARY.md") in shipped
    assert all(i18n.po_file(lang) in shipped for lang in TRANSLATED)
    assert "babel>=2.12" in Path(i18n.ROOT / "pyproject.toml").read_text().split("[project]")[0]
