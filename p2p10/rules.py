"""The rule set: the ten phases and every rule option, as one immutable value.

Every variation the seeds describe is a field of :class:`RuleSet`; the engine reads the
fields in exactly one place each, never a fork of the code. Options are written the same way
on the command line, in scenario files and in JSON: ``skip=next``, ``skip_stacking``,
``natural=phase``, ``hit=own``, ``phases=even``, ``phases=odd``, ``order=any``,
``hands=10``, ``goal=N``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Literal

from p2p10.errors import BadRules

MeldKind = Literal["set", "run", "color"]


@dataclass(frozen=True, slots=True)
class MeldReq:
    """One meld a phase asks for: a kind and its minimum size."""

    kind: MeldKind
    size: int

    def describe(self) -> str:
        """'set of 3', 'run of 4', '7 cards of one colour'."""
        if self.kind == "color":
            return f"{self.size} cards of one colour"
        return f"{self.kind} of {self.size}"


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


def describe_phase(phase: int) -> str:
    """'2 sets of 3', 'set of 3 + run of 4', ..."""
    reqs = PHASES[phase]
    if len(reqs) == 2 and reqs[0] == reqs[1]:
        return f"2 {reqs[0].kind}s of {reqs[0].size}"
    return " + ".join(r.describe() for r in reqs)


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
            raise BadRules(f"phase list {self.phase_list} must name phases 1..10")
        if self.hands < 0 or self.goal < 0:
            raise BadRules("hands and goal cannot be negative (0 turns the option off)")
        if self.hands and self.goal:
            raise BadRules("hands=N and goal=N cannot both be set: each ends the game")
        if self.hands and self.any_order:
            raise BadRules("order=any has no meaning with hands=N: everybody plays the same phase")
        if self.goal > len(self.phase_list):
            raise BadRules(
                f"goal={self.goal} is more phases than the {len(self.phase_list)} played"
            )

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
        """A readable one-liner of the options in force."""
        return ", ".join(self.options()) or "standard rules"

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
                raise BadRules(f"a rule option is at most {MAX_OPTION_CHARS} characters")
            kwargs.update(_parse_option(key.strip().lower(), None if value is None else value.strip().lower(),
                                        typed))
        return cls(**kwargs)  # type: ignore[arg-type]


MAX_OPTION_CHARS = 40

PHASE_LISTS: Mapping[str, tuple[int, ...]] = {
    "all": tuple(range(1, 11)),
    "even": (2, 4, 6, 8, 10),
    "odd": (1, 3, 5, 7, 9),
}

OPTION_HELP = (
    ("skip=next", "a Skip always hits the next player (two players: you go again)"),
    ("skip_stacking", "a player may be skipped again before their own next turn"),
    ("natural=phase", "one numbered card per phase is enough (default: one per meld)"),
    ("hit=own", "hit only on your own melds"),
    ("phases=even|odd", "play only the even (2,4,6,8,10) or odd (1,3,5,7,9) phases"),
    ("order=any", "lay down any phase of the list not yet made"),
    ("hands=N", "exactly N hands, everybody advances every hand, lowest total wins"),
    ("goal=N", "the game ends when somebody has made N phases"),
)


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
        return f"{key}={yes} or {key}={no}"
    if key == "phases":
        return "phases=all, phases=even or phases=odd"
    if key in _COUNTS:
        return f"{key}=N, a whole number of at least 1"
    return f"{key}, {key}=true or {key}=false"


def _parse_option(key: str, value: str | None, typed: str) -> dict[str, object]:
    """One option's field; ``value`` is None when none was given, ``typed`` the option as the
    user gave it (for the messages)."""
    if key in _FLAGS:
        if value is None or value in _YES:
            return {_FLAGS[key]: True}
        if value in _NO:
            return {_FLAGS[key]: False}
        raise BadRules(f"rule option {typed!r}: expected {_accepted(key)}")
    if key not in _CHOICES and key not in _COUNTS and key != "phases":
        known = ", ".join(name for name, _ in OPTION_HELP)
        raise BadRules(f"unknown rule option {typed!r}; the options are {known}")
    if value is None:
        raise BadRules(f"rule option {typed!r} needs a value: {_accepted(key)}")
    if key in _CHOICES:
        field, yes, no = _CHOICES[key]
        if value in (yes, no):
            return {field: value == yes}
    elif key == "phases":
        if value in PHASE_LISTS:
            return {"phase_list": PHASE_LISTS[value]}
    elif value.isascii() and value.isdigit() and int(value) >= 1:
        return {key: int(value)}
    raise BadRules(f"rule option {typed!r}: expected {_accepted(key)}")


DEFAULT = RuleSet()

RULE_FIELDS = tuple(f.name for f in fields(RuleSet))
