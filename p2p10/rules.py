"""The rule set: the ten phases and every rule option, as one immutable value.

Every variation the seeds describe is a field of :class:`RuleSet`; the engine reads the
fields in exactly one place each, never a fork of the code. Options are written the same way
on the command line, in scenario files and in JSON: ``skip=next``, ``skip_stacking``,
``natural=phase``, ``hit=own``, ``phases=even``, ``phases=odd``, ``order=any``,
``hands=10``, ``goal=N``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal

from p2p10.errors import BadRules
from p2p10.i18n import N_, _

MeldKind = Literal["set", "run", "color"]


@dataclass(frozen=True, slots=True)
class MeldReq:
    """One meld a phase asks for: a kind and its minimum size."""

    kind: MeldKind
    size: int

    def describe(self) -> str:
        """'set of 3', 'run of 4', '7 cards of one colour', in the current language."""
        named = _MELD_REQ_NAMES.get((self.kind, self.size))
        if named is not None:
            return _(named)
        if self.kind == "color":
            return _("{n} cards of one colour").format(n=self.size)
        if self.kind == "set":
            return _("set of {n}").format(n=self.size)
        return _("run of {n}").format(n=self.size)


# The melds the phases ask for, by name (the glossary names each: "Drilling", "Viererfolge").
_MELD_REQ_NAMES: Mapping[tuple[MeldKind, int], str] = {
    # TRANSLATORS: a meld a phase asks for: two or more cards of one number (German "Zwilling").
    ("set", 2): N_("set of 2"),
    # TRANSLATORS: a meld a phase asks for (German "Drilling").
    ("set", 3): N_("set of 3"),
    # TRANSLATORS: a meld a phase asks for (German "Vierling").
    ("set", 4): N_("set of 4"),
    # TRANSLATORS: a meld a phase asks for (German "Fünfling").
    ("set", 5): N_("set of 5"),
    # TRANSLATORS: a meld a phase asks for: four or more cards in a row (German "Viererfolge").
    ("run", 4): N_("run of 4"),
    # TRANSLATORS: a meld a phase asks for (German "Siebenerfolge").
    ("run", 7): N_("run of 7"),
    # TRANSLATORS: a meld a phase asks for (German "Achterfolge").
    ("run", 8): N_("run of 8"),
    # TRANSLATORS: a meld a phase asks for (German "Neunerfolge").
    ("run", 9): N_("run of 9"),
    # TRANSLATORS: a meld a phase asks for (phase 8).
    ("color", 7): N_("7 cards of one colour"),
}


PHASES: Mapping[int, tuple[MeldReq, ...]] = {
    1: (MeldReq("set", 3), MeldReq("set", 3)),
    2: (MeldReq("set", 3), MeldReq("run", 4)),
    3: (MeldReq("set", 4), MeldReq("run", 4)),
    4: (MeldReq("run", 7),),
    5: (MeldReq("run", 8),),
    6: (MeldReq("run", 9),),
    7: (MeldReq("set", 4), MeldReq("set", 4)),
    8: (MeldReq("color", 7),),
    9: (MeldReq("set", 5), MeldReq("set", 2)),
    10: (MeldReq("set", 5), MeldReq("set", 3)),
}


# What each phase asks for, in the words of the glossary's table of the ten phases.
PHASE_NAMES: Mapping[int, str] = {
    # TRANSLATORS: phase 1 (the glossary's table of the ten phases names each).
    1: N_("2 sets of 3"),
    # TRANSLATORS: phase 2.
    2: N_("set of 3 + run of 4"),
    # TRANSLATORS: phase 3.
    3: N_("set of 4 + run of 4"),
    # TRANSLATORS: phase 4 (one meld: "run of 7" alone).
    4: N_("run of 7"),
    # TRANSLATORS: phase 5.
    5: N_("run of 8"),
    # TRANSLATORS: phase 6.
    6: N_("run of 9"),
    # TRANSLATORS: phase 7.
    7: N_("2 sets of 4"),
    # TRANSLATORS: phase 8.
    8: N_("7 cards of one colour"),
    # TRANSLATORS: phase 9.
    9: N_("set of 5 + set of 2"),
    # TRANSLATORS: phase 10.
    10: N_("set of 5 + set of 3"),
}


def describe_phase(phase: int) -> str:
    """'2 sets of 3', 'set of 3 + run of 4', ..., in the current language."""
    return _(PHASE_NAMES[phase])


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option. The default value is the standard Mattel game.

    Attributes:
        skip_next: ``skip=next`` — a Skip always hits the next player (at two players the
            discarder goes again) instead of a target the discarder chooses.
        skip_stacking: a player may be skipped again before their own next turn.
        natural_per_phase: ``natural=phase`` — one numbered card per phase is enough,
            instead of one in every meld.
        hit_own: ``hit=own`` — hit only on your own melds.
        phase_list: the phases played, in order (``phases=even`` / ``phases=odd``).
        any_order: ``order=any`` — lay down any phase of the list not yet made.
        hands: ``hands=N`` — exactly N hands; everybody plays the same phase each hand and
            advances whether or not they made it; lowest total wins. 0 means off.
        goal: ``goal=N`` — the game ends after the hand in which somebody has made N phases.
            0 means off (the game ends when somebody has made every phase of the list).
    """

    skip_next: bool = False
    skip_stacking: bool = False
    natural_per_phase: bool = False
    hit_own: bool = False
    phase_list: tuple[int, ...] = tuple(range(1, 11))
    any_order: bool = False
    hands: int = 0
    goal: int = 0

    def __post_init__(self) -> None:
        if not self.phase_list or any(p not in PHASES for p in self.phase_list):
            raise BadRules(_("phase list {phases} must name phases 1..10").format(phases=self.phase_list))
        if self.hands < 0 or self.goal < 0:
            raise BadRules(_("hands and goal cannot be negative (0 turns the option off)"))
        if self.hands and self.goal:
            raise BadRules(_("hands=N and goal=N cannot both be set: each ends the game"))
        if self.hands and self.any_order:
            raise BadRules(_("order=any has no meaning with hands=N: everybody plays the same phase"))
        if self.goal > len(self.phase_list):
            raise BadRules(_("goal={goal} is more phases than the {n} played").format(
                goal=self.goal, n=len(self.phase_list)))

    @property
    def phases_to_win(self) -> int:
        """How many phases a player must make to finish (not used with ``hands``)."""
        return self.goal or len(self.phase_list)

    def options(self) -> tuple[str, ...]:
        """The rule set written as option strings; empty for the default rules."""
        out: list[str] = []
        if self.skip_next:
            out.append("skip=next")
        if self.skip_stacking:
            out.append("skip_stacking")
        if self.natural_per_phase:
            out.append("natural=phase")
        if self.hit_own:
            out.append("hit=own")
        if self.phase_list != DEFAULT.phase_list:
            named = {v: k for k, v in PHASE_LISTS.items()}
            out.append(f"phases={named.get(self.phase_list, ','.join(map(str, self.phase_list)))}")
        if self.any_order:
            out.append("order=any")
        if self.hands:
            out.append(f"hands={self.hands}")
        if self.goal:
            out.append(f"goal={self.goal}")
        return tuple(out)

    def describe(self) -> str:
        """A readable one-liner of the options in force (the options as written, or "standard
        rules" in the current language)."""
        # TRANSLATORS: what the rules say when no rule option is set.
        return ", ".join(self.options()) or _("standard rules")

    @classmethod
    def parse(cls, options: Iterable[str] | Mapping[str, object] | None = None) -> RuleSet:
        """Build a rule set from option strings (``["skip=next", "goal=5"]``) or a mapping
        (``{"skip": "next", "goal": 5, "skip_stacking": true}``). Raises :class:`BadRules`."""
        if options is None:
            return DEFAULT
        # (key, value or None when none is given, the option as typed)
        given: list[tuple[str, str | None, str]] = []
        if isinstance(options, Mapping):
            for key, value in options.items():
                text = "true" if value is True else "false" if value is False else str(value)
                given.append((str(key), text, f"{key}={text}"))
        else:
            for item in options:
                key, sep, value = str(item).partition("=")
                given.append((key, value if sep else None, str(item).strip()))
        kwargs: dict[str, object] = {}
        for key, value, typed in given:
            # Options come from other peers too (a sit-down, a roster): every message below
            # repeats the option, so it is bounded here, once.
            if len(key) + len(value or "") > MAX_OPTION_CHARS:
                raise BadRules(_("a rule option is at most {n} characters").format(n=MAX_OPTION_CHARS))
            kwargs.update(_parse_option(key.strip().lower(), None if value is None else value.strip().lower(),
                                        typed))
        return cls(**kwargs)  # type: ignore[arg-type]  # keys known at run time; _parse_option types values


MAX_OPTION_CHARS = 40

PHASE_LISTS: Mapping[str, tuple[int, ...]] = {
    "all": tuple(range(1, 11)),
    "even": (2, 4, 6, 8, 10),
    "odd": (1, 3, 5, 7, 9),
}

# Each option as written (never translated) and what it does (marked here: translate it with
# _() where it is shown, or take the pairs translated from option_help()).
OPTION_HELP = (
    ("skip=next", N_("a Skip always hits the next player (two players: you go again)")),
    ("skip_stacking", N_("a player may be skipped again before their own next turn")),
    ("natural=phase", N_("one numbered card per phase is enough (default: one per meld)")),
    ("hit=own", N_("hit only on your own melds")),
    ("phases=even|odd", N_("play only the even (2,4,6,8,10) or odd (1,3,5,7,9) phases")),
    ("order=any", N_("lay down any phase of the list not yet made")),
    # TRANSLATORS: N is the option's syntax (hands=N): keep it as it is.
    ("hands=N", N_("exactly N hands, everybody advances every hand, lowest total wins")),
    # TRANSLATORS: N is the option's syntax (goal=N): keep it as it is.
    ("goal=N", N_("the game ends when somebody has made N phases")),
)


def option_help() -> tuple[tuple[str, str], ...]:
    """:data:`OPTION_HELP` with each help line in the current language."""
    return tuple((name, _(text)) for name, text in OPTION_HELP)


# An option that picks one of two values: the field it sets, the value that sets it, the other.
_CHOICES: Mapping[str, tuple[str, str, str]] = {
    "skip": ("skip_next", "next", "choose"),
    "natural": ("natural_per_phase", "phase", "meld"),
    "hit": ("hit_own", "own", "any"),
    "order": ("any_order", "any", "sequence"),
}
_COUNTS = ("hands", "goal")
_FLAGS = {"skip_stacking": "skip_stacking", "skip-stacking": "skip_stacking"}
_YES = ("true", "1", "yes", "on", "")
_NO = ("false", "0", "no", "off")


def _accepted(key: str) -> str:
    """The values an option takes, in words."""
    if key in _CHOICES:
        _field, yes, no = _CHOICES[key]
        # TRANSLATORS: the two ways to write an option (skip=next or skip=choose): keep the
        # "{key}={yes}" and "{key}={no}" as they are.
        return _("{key}={yes} or {key}={no}").format(key=key, yes=yes, no=no)
    if key == "phases":
        # TRANSLATORS: the ways to write the option: keep phases=all, phases=even, phases=odd.
        return _("phases=all, phases=even or phases=odd")
    if key in _COUNTS:
        # TRANSLATORS: {key}=N is the option as written (hands=N): keep it.
        return _("{key}=N, a whole number of at least 1").format(key=key)
    # TRANSLATORS: the ways to write a flag (skip_stacking, skip_stacking=true, ...): keep them.
    return _("{key}, {key}=true or {key}=false").format(key=key)


def _parse_option(key: str, value: str | None, typed: str) -> dict[str, object]:
    """One option's field; ``value`` is None when none was given, ``typed`` the option as the
    user gave it (for the messages)."""
    if key in _FLAGS:
        if value is None or value in _YES:
            return {_FLAGS[key]: True}
        if value in _NO:
            return {_FLAGS[key]: False}
        raise BadRules(_("rule option {typed!r}: expected {accepted}").format(
            typed=typed, accepted=_accepted(key)))
    if key not in _CHOICES and key not in _COUNTS and key != "phases":
        known = ", ".join(name for name, _text in OPTION_HELP)
        raise BadRules(_("unknown rule option {typed!r}; the options are {known}").format(
            typed=typed, known=known))
    if value is None:
        raise BadRules(_("rule option {typed!r} needs a value: {accepted}").format(
            typed=typed, accepted=_accepted(key)))
    if key in _CHOICES:
        field, yes, no = _CHOICES[key]
        if value in (yes, no):
            return {field: value == yes}
    elif key == "phases":
        if value in PHASE_LISTS:
            return {"phase_list": PHASE_LISTS[value]}
    elif value.isascii() and value.isdigit() and int(value) >= 1:
        return {key: int(value)}
    raise BadRules(_("rule option {typed!r}: expected {accepted}").format(
        typed=typed, accepted=_accepted(key)))


DEFAULT = RuleSet()


def canonical_options(options: Sequence[str]) -> bool:
    """True when ``options`` are in canonical form: exactly what :meth:`RuleSet.options`
    writes for the rule set they describe (PROTOCOL 4.4.1). That is, the options that differ
    from the standard rules and nothing else, each once, in the order ``skip=next``,
    ``skip_stacking``, ``natural=phase``, ``hit=own``, ``phases=even|odd``, ``order=any``,
    ``hands=N``, ``goal=N``, in lower case without spaces, ``N`` in decimal with no leading
    zero, and a valid combination. A sit-down must carry them so: two seats that agree on the
    rules then carry the same strings, and a seat that writes them otherwise is at fault
    (``hands=02`` against ``hands=2`` must not blame the seat that wrote ``hands=2``)."""
    try:
        return RuleSet.parse(list(options)).options() == tuple(options)
    except BadRules:
        return False

RULE_FIELDS = tuple(f.name for f in fields(RuleSet))
