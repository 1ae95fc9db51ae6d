"""Private tables' codes, the code exchange and the guess limiter (protocol/private.py)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p10.errors import P2P10Error, ProtocolError
from p2p10.signing import SMALL_ORDER
from protocol.private import (
    CODE_BITS,
    CONFIRMATION_BYTES,
    MESSAGE_BYTES,
    TABLE_KEY_BYTES,
    BadCode,
    BadExchange,
    CodeProof,
    GuessLimiter,
    OutOfOrder,
    binding_of,
    new_code,
    parse_code,
    source_of_guess,
)
from protocol.words import WORDS

CODE = "7-orbit-tulip"
HOST_KEY = bytes(range(32))
GUEST_KEY = bytes(range(32, 64))
BINDING = binding_of(HOST_KEY, GUEST_KEY)


def one_edit_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def pair(guest_code: str = CODE, host_code: str = CODE, guest_binding: bytes = BINDING,
         host_binding: bytes = BINDING) -> tuple[CodeProof, CodeProof]:
    """A guest's and a host's proof with their SPAKE2 messages exchanged (steps 1 and 2)."""
    guest = CodeProof(guest_code, "guest", guest_binding)
    host = CodeProof(host_code, "host", host_binding)
    host.receive(guest.message())
    guest.receive(host.message())
    return guest, host


def hostile_host_confirmation(host: CodeProof) -> bytes:
    # A host that does not check the guest's confirmation first (a hostile one, or a relay)
    # can still compute its own: what the guest's check must then refuse.
    return host._mac("host")


# The words and the codes


def test_the_word_list_has_256_distinct_short_lowercase_words() -> None:
    assert len(WORDS) == 256
    assert len(set(WORDS)) == 256
    assert all(re.fullmatch(r"[a-z]{3,7}", word) for word in WORDS)
    assert list(WORDS) == sorted(WORDS)


def test_no_word_is_a_typo_or_the_start_of_another() -> None:
    close = [(a, b) for i, a in enumerate(WORDS) for b in WORDS[i + 1:]
             if one_edit_apart(a, b) or b.startswith(a) or a.startswith(b)]
    assert close == []


def test_the_entropy_is_as_documented() -> None:
    assert math.isclose(CODE_BITS, math.log2(99 * 256 * 256))
    assert round(CODE_BITS, 1) == 22.6


def test_new_codes_have_the_format_and_parse_to_themselves() -> None:
    seen = set()
    for _i in range(300):
        code = new_code()
        number, first, second = code.split("-")
        assert re.fullmatch(r"[1-9][0-9]?", number)
        assert first in WORDS and second in WORDS
        assert parse_code(code) == code
        seen.add(code)
    assert len(seen) > 290  # 300 draws from 6.5 million codes: a repeat or two at most


@pytest.mark.parametrize(("typed", "canonical"), [
    ("7-orbit-tulip", "7-orbit-tulip"),
    ("  7-orbit-tulip\n", "7-orbit-tulip"),
    ("7 Orbit TULIP", "7-orbit-tulip"),
    ("7--orbit---tulip", "7-orbit-tulip"),
    ("7 - orbit -  tulip", "7-orbit-tulip"),
    ("-7-orbit-tulip-", "7-orbit-tulip"),
    ("07-orbit-tulip", "7-orbit-tulip"),
    ("99\torbit\ttulip", "99-orbit-tulip"),
    ("1\u2013orbit\u2014tulip", "1-orbit-tulip"),  # dashes an autocorrection put in
    ("42-tulip-tulip", "42-tulip-tulip"),
])
def test_parse_code_normalises_what_people_type(typed: str, canonical: str) -> None:
    assert parse_code(typed) == canonical


@pytest.mark.parametrize(("typed", "says"), [
    ("", "empty"),
    ("  - -  ", "empty"),
    ("7-orbit", "three parts"),
    ("orbit tulip", "three parts"),
    ("7-orbit-tulip-zebra", "three parts"),
    ("seven-orbit-tulip", "starts with a number"),
    ("7a-orbit-tulip", "starts with a number"),
    ("\u0667-orbit-tulip", "starts with a number"),  # an Arabic-Indic seven
    ("0-orbit-tulip", "from 1 to 99, not 0"),
    ("100-orbit-tulip", "from 1 to 99, not 100"),
    ("7-orbitt-tulip", "'orbitt' is not one of the code's words"),
    ("7-orbit-tulips", "'tulips' is not one of the code's words"),
    ("7-orbit-tülip", "'tülip' is not one of the code's words"),
])
def test_parse_code_says_what_is_wrong(typed: str, says: str) -> None:
    with pytest.raises(BadCode) as raised:
        parse_code(typed)
    assert says in str(raised.value)
    assert isinstance(raised.value, P2P10Error)


@st.composite
def typed_codes(draw: st.DrawFn) -> tuple[str, str]:
    """A code, and the code as a person might type it: any case, any spaces and hyphens."""
    number = draw(st.integers(1, 99))
    words = [draw(st.sampled_from(WORDS)) for _i in range(2)]
    canonical = f"{number}-{words[0]}-{words[1]}"
    gap = st.text(alphabet=" -\t", min_size=1, max_size=4)
    edge = st.text(alphabet=" \t\n", max_size=3)
    zeros = "0" * draw(st.integers(0, 2))
    typed = draw(edge) + zeros + str(number) + draw(gap) + words[0] + draw(gap) + words[1] + draw(edge)
    flips = draw(st.lists(st.booleans(), min_size=len(typed), max_size=len(typed)))
    typed = "".join(c.upper() if flip else c for c, flip in zip(typed, flips, strict=True))
    return canonical, typed


@given(typed_codes())
def test_parse_code_is_stable_under_spacing_and_case(sample: tuple[str, str]) -> None:
    canonical, typed = sample
    assert parse_code(typed) == canonical
    assert parse_code(parse_code(typed)) == canonical


# The exchange


def test_the_right_code_proves_itself_both_ways_and_gives_one_table_key() -> None:
    guest, host = pair()
    guest_confirmation = guest.confirmation()
    assert len(guest_confirmation) == CONFIRMATION_BYTES
    assert host.check(guest_confirmation)
    host_confirmation = host.confirmation()
    assert guest.check(host_confirmation)
    assert guest_confirmation != host_confirmation
    assert guest.table_key() == host.table_key()
    assert len(guest.table_key()) == TABLE_KEY_BYTES
    assert guest.table_key() not in (guest_confirmation, host_confirmation)


def test_messages_have_the_documented_shape() -> None:
    guest = CodeProof(CODE, "guest", BINDING)
    host = CodeProof(CODE, "host", BINDING)
    assert len(guest.message()) == len(host.message()) == MESSAGE_BYTES
    assert guest.message()[:1] == b"A" and host.message()[:1] == b"B"
    assert guest.message() == guest.message()  # the same message again, not a new one


def test_the_code_may_be_typed_differently_on_each_side() -> None:
    guest, host = pair(guest_code=" 07 Orbit  TULIP ")
    assert host.check(guest.confirmation())
    assert guest.check(host.confirmation())


def test_the_host_may_send_its_message_before_it_receives() -> None:
    guest = CodeProof(CODE, "guest", BINDING)
    host = CodeProof(CODE, "host", BINDING)
    guest.receive(host.message())
    host.receive(guest.message())
    assert host.check(guest.confirmation())
    assert guest.check(host.confirmation())


def test_runs_differ_even_with_the_same_code() -> None:
    first, _host1 = pair()
    second, _host2 = pair()
    assert first.message() != second.message()
    assert first.confirmation() != second.confirmation()


def test_a_wrong_code_fails_on_both_sides() -> None:
    guest, host = pair(host_code="7-orbit-zebra")
    assert not host.check(guest.confirmation())
    with pytest.raises(OutOfOrder):
        host.confirmation()  # a host that failed the guest gives it nothing
    guest, host = pair(host_code="8-orbit-tulip")
    guest.confirmation()
    assert not guest.check(hostile_host_confirmation(host))
    with pytest.raises(OutOfOrder):
        guest.table_key()


def test_a_different_binding_fails_on_both_sides() -> None:
    # A relay in the middle: each side saw a different key in TLS.
    relay = bytes(32)
    guest, host = pair(guest_binding=binding_of(relay, GUEST_KEY),
                       host_binding=binding_of(HOST_KEY, relay))
    assert not host.check(guest.confirmation())
    guest, host = pair(guest_binding=binding_of(relay, GUEST_KEY),
                       host_binding=binding_of(HOST_KEY, relay))
    guest.confirmation()
    assert not guest.check(hostile_host_confirmation(host))
    guest, host = pair(host_binding=binding_of(HOST_KEY, GUEST_KEY, b"another table"))
    assert not host.check(guest.confirmation())


def test_binding_of_keeps_its_parts_apart() -> None:
    assert binding_of(b"ab", b"c") != binding_of(b"a", b"bc")
    assert binding_of(HOST_KEY, GUEST_KEY) != binding_of(GUEST_KEY, HOST_KEY)


def test_a_reflected_confirmation_fails() -> None:
    guest, _host = pair()
    assert not guest.check(guest.confirmation())
    guest, host = pair()
    assert host.check(guest.confirmation())
    host_confirmation = host.confirmation()
    other_host = CodeProof(CODE, "host", BINDING)
    other_guest = CodeProof(CODE, "guest", BINDING)
    other_host.receive(other_guest.message())
    other_host.message()
    assert not other_host.check(host_confirmation)


def test_a_reflected_message_is_refused() -> None:
    host = CodeProof(CODE, "host", BINDING)
    with pytest.raises(BadExchange):
        host.receive(host.message())
    host = CodeProof(CODE, "host", BINDING)
    with pytest.raises(BadExchange):
        host.receive(b"A" + host.message()[1:])  # the side byte changed: the library's check


@pytest.mark.parametrize("message", [
    b"",
    b"A",
    b"A" + bytes(31),
    b"A" + bytes(33),
    b"B" + bytes(32),          # from the host's own side
    b"S" + bytes(32),          # from a symmetric SPAKE2
    b"A" + bytes(32),          # y = 0: not on the curve
    b"A" + b"\x01" + bytes(31),  # the identity
    b"A" + b"\x02" + bytes(31),
    b"A" + b"\xff" * 32,
    b"A" + b"\x01" + bytes(30) + b"\x80",  # the identity with the sign bit set: not canonical
    b"A" + (2**255 - 19 + 9).to_bytes(32, "little"),  # y = 9 written as p + 9: not canonical
    *(b"A" + point for point in sorted(SMALL_ORDER)),  # the points of small order
])
def test_a_malformed_message_is_a_typed_error_and_spends_the_proof(message: bytes) -> None:
    host = CodeProof(CODE, "host", BINDING)
    with pytest.raises(BadExchange) as raised:
        host.receive(message)
    assert isinstance(raised.value, ProtocolError)
    with pytest.raises(OutOfOrder):
        host.receive(CodeProof(CODE, "guest", BINDING).message())
    with pytest.raises(OutOfOrder):
        host.message()


def test_a_message_that_is_not_bytes_is_a_typed_error() -> None:
    host = CodeProof(CODE, "host", BINDING)
    with pytest.raises(BadExchange):
        host.receive("A" * 33)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.sampled_from([b"A", b"B", b"S", b"\x00"]))
def test_any_message_is_taken_or_refused_with_a_typed_error(point: bytes, side: bytes) -> None:
    host = CodeProof(CODE, "host", BINDING)
    try:
        host.receive(side + point)
    except BadExchange:
        return
    # A random point of the right subgroup: the exchange goes on, and the code is not proven.
    assert side == b"A"
    host.message()
    assert not host.check(bytes(CONFIRMATION_BYTES))


def test_the_steps_are_taken_in_order() -> None:
    guest = CodeProof(CODE, "guest", BINDING)
    host = CodeProof(CODE, "host", BINDING)
    with pytest.raises(OutOfOrder):
        guest.confirmation()              # before the messages
    with pytest.raises(OutOfOrder):
        guest.check(bytes(32))
    with pytest.raises(OutOfOrder):
        guest.table_key()
    host.receive(guest.message())
    with pytest.raises(OutOfOrder):
        host.check(bytes(32))             # the host has not sent its message yet
    guest.receive(host.message())
    with pytest.raises(OutOfOrder):
        guest.receive(host.message())     # a second message
    with pytest.raises(OutOfOrder):
        guest.check(bytes(32))            # the guest checks only after it has confirmed
    with pytest.raises(OutOfOrder):
        host.confirmation()               # the host confirms only after it has checked
    with pytest.raises(OutOfOrder):
        host.table_key()
    assert host.check(guest.confirmation())
    with pytest.raises(OutOfOrder):
        host.check(guest.confirmation())  # once
    assert guest.check(host.confirmation())
    assert guest.table_key() == host.table_key()


def test_a_failed_check_spends_the_proof() -> None:
    guest, host = pair()
    assert not host.check(b"\x00" * CONFIRMATION_BYTES)
    for step in (host.confirmation, host.table_key, host.message, lambda: host.check(guest.confirmation())):
        with pytest.raises(OutOfOrder):
            step()


@pytest.mark.parametrize("theirs", [b"", b"\x00" * 31, b"\x00" * 33, "not bytes"])
def test_a_confirmation_of_the_wrong_size_or_type_is_wrong(theirs: bytes) -> None:
    _guest, host = pair()
    assert not host.check(theirs)


def test_the_proof_refuses_a_bad_role_or_code() -> None:
    with pytest.raises(ValueError):
        CodeProof(CODE, "dealer", BINDING)  # type: ignore[arg-type]
    with pytest.raises(BadCode):
        CodeProof("7-orbit", "guest", BINDING)


def test_out_of_order_is_a_protocol_error_the_lobby_already_handles() -> None:
    assert issubclass(OutOfOrder, BadExchange)
    assert issubclass(BadExchange, ProtocolError)
    assert issubclass(BadCode, P2P10Error) and issubclass(BadCode, ValueError)


# The guess limiter


def alone(**numbers: Any) -> GuessLimiter:
    """A limiter whose global bound and per-source share are out of the way."""
    return GuessLimiter(global_limit=10**6, per_source=10**6, **numbers)


def test_each_wrong_guess_doubles_the_wait_up_to_the_cap() -> None:
    limiter = alone()
    now = 0.0
    waits = []
    assert limiter.wait("a", now) == 0
    for _i in range(9):
        limiter.failed("a", now)
        waits.append(limiter.wait("a", now))
        now += waits[-1]
        assert limiter.wait("a", now) == 0
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_the_wait_counts_down() -> None:
    limiter = alone()
    limiter.failed("a", 100.0)
    limiter.failed("a", 101.0)
    assert limiter.wait("a", 101.5) == pytest.approx(1.5)
    assert limiter.wait("a", 103.0) == 0
    assert limiter.wait("b", 101.5) == 0  # another address is free


def test_a_long_run_of_failures_stays_at_the_cap() -> None:
    limiter = alone()
    for i in range(5000):
        limiter.failed("a", float(i))
    assert limiter.wait("a", 4999.0) == 60


def test_a_right_code_resets_the_address() -> None:
    limiter = alone()
    for t in (0.0, 1.0, 3.0, 7.0):
        limiter.failed("a", t)
    assert limiter.wait("a", 7.0) == 8
    limiter.succeeded("a")
    assert limiter.wait("a", 7.0) == 0
    limiter.failed("a", 7.0)
    assert limiter.wait("a", 7.0) == 1


def test_the_global_bound_holds_whatever_the_addresses() -> None:
    limiter = GuessLimiter()  # 3 wrong guesses a minute
    for i, t in enumerate((0.0, 10.0, 20.0)):
        assert limiter.wait(f"10.0.0.{i}", t) == 0
        limiter.failed(f"10.0.0.{i}", t)
    assert limiter.wait("10.0.0.99", 30.0) == pytest.approx(30.0)  # until the first is a minute old
    # Asked to begin, it takes a place in the queue and is told to come back within 20 s.
    assert limiter.begin("10.0.0.99", 30.0) == pytest.approx(20.0)
    assert limiter.wait("10.0.0.99", 60.0) == 0
    limiter.failed("10.0.0.99", 60.0)
    assert limiter.wait("10.0.0.98", 60.0) == pytest.approx(10.0)
    assert limiter.wait("10.0.0.98", 70.0) == 0


def test_the_documented_numbers_give_years() -> None:
    limiter = GuessLimiter()
    guesses_per_minute = limiter.global_limit * 60 / limiter.global_window
    years = 99 * 256 * 256 / 2 / guesses_per_minute / (60 * 24 * 365)
    assert years > 2
    assert limiter.cap <= limiter.idle  # forgetting an idle address never cuts a wait short


def test_begin_counts_an_attempt_at_once() -> None:
    limiter = GuessLimiter(global_limit=10**6)
    assert limiter.begin("a", 0.0) == 0
    # A second connection from the same address in parallel (a player and a spectator on one
    # machine) is not held back by an attempt not ended yet, up to the address's share.
    assert limiter.begin("a", 0.0) == 0
    assert limiter.begin("a", 0.0) == 60  # a third waits for the first to leave the window
    limiter.failed("a", 0.8)
    limiter.failed("a", 2.0)
    assert limiter.wait("a", 2.0) == 58  # the share is spent
    assert limiter.wait("a", 60.0) == 0  # and two failures wait 2 s from the last


def test_an_attempt_abandoned_counts_as_a_failure() -> None:
    limiter = alone()
    now = 0.0
    for wait in (1, 2, 4):
        assert limiter.begin("a", now) == 0
        limiter.failed("a", now)  # hung up after its message: the lobby calls failed
        assert limiter.wait("a", now) == wait
        now += wait


def test_an_address_never_holds_the_whole_window() -> None:
    """Attack A54: a stranger that begins attempts and hangs up, as fast as it is let, from one
    address, takes at most its share of the window; another address may try at once."""
    limiter = GuessLimiter()
    now, taken = 0.0, 0
    for _step in range(10_000):
        if limiter.begin("10.0.0.66", now) == 0:
            taken += 1
            limiter.failed("10.0.0.66", now)  # hung up: a failure
        now += 0.1
        assert limiter.wait("10.0.0.1", now) == 0
    # The backoff's first steps (1 + 2 + ... + 32 s: 7 attempts), then one a minute.
    assert taken <= 7 + 1000 / 60


def test_the_sources_take_turns_when_the_window_is_full() -> None:
    """Many addresses fill the window and keep asking: a guest who asks after them is served
    after them, in the order they first asked, not by racing them; a source that does not
    come back when told loses its place."""
    limiter = GuessLimiter(poll=20.0, grace=10.0)
    strangers = [f"10.0.1.{i}" for i in range(9)]
    guest = "10.0.2.1"
    back = dict.fromkeys([*strangers, guest], 0.0)  # when each asks next
    order = []
    now = 0.0
    while guest not in order:
        for source in [*strangers, guest]:
            if back[source] <= now:
                wait = limiter.begin(source, now)
                if wait == 0:
                    order.append(source)
                    limiter.failed(source, now)
                    wait = 3600.0 if source != guest else 0.0  # a stranger is served once here
                back[source] = now + wait
        now += 0.25
    assert order == [*strangers, guest]
    assert 180 <= now <= 181  # 9 strangers at 3 a minute: the guest's turn comes at 3 minutes


def test_a_source_that_does_not_come_back_loses_its_place() -> None:
    limiter = GuessLimiter(poll=20.0, grace=10.0)
    for i in range(3):
        assert limiter.begin(f"10.0.1.{i}", 0.0) == 0
    assert limiter.begin("10.0.3.1", 1.0) == 20
    assert limiter.queued == 1
    limiter.wait("10.0.3.2", 31.0)
    assert limiter.queued == 1  # still within its grace
    limiter.wait("10.0.3.2", 31.5)
    assert limiter.queued == 0


def test_ipv6_sources_are_counted_by_their_64() -> None:
    assert source_of_guess("2001:db8:1:2::5") == source_of_guess("2001:db8:1:2:aaaa::7") \
        == "2001:db8:1:2::/64"
    assert source_of_guess("::ffff:10.0.0.1") == "10.0.0.1"
    assert source_of_guess("10.0.0.1") == "10.0.0.1" and source_of_guess("?") == "?"
    limiter = GuessLimiter()
    assert limiter.begin("2001:db8:1:2::5", 0.0) == 0
    limiter.failed("2001:db8:1:2::5", 0.0)
    assert limiter.begin("2001:db8:1:2::6", 0.5) > 0  # another address of the same /64


def test_begin_counts_globally_and_a_right_code_takes_it_back() -> None:
    limiter = GuessLimiter(global_limit=2)
    assert limiter.begin("a", 0.0) == 0
    assert limiter.begin("b", 0.0) == 0
    assert limiter.begin("c", 0.0) == 20  # two attempts fill the minute: back in 20 s
    limiter.succeeded("a")
    assert limiter.begin("c", 0.0) == 0
    limiter.failed("b", 1.0)  # already counted: no third entry
    limiter.succeeded("c")
    assert limiter.wait("d", 1.0) == 0


def test_the_pending_attempts_of_an_address_are_bounded() -> None:
    limiter = alone(cap=1.0)
    for i in range(100):
        assert limiter.begin("a", float(i)) == 0
    assert len(limiter._sources["a"].pending) <= 16


def test_memory_is_bounded_and_the_oldest_go_first() -> None:
    limiter = alone(max_addresses=4)
    for i in range(10):
        limiter.failed(f"a{i}", float(i))
    assert len(limiter) == 4
    assert limiter.wait("a0", 9.0) == 0   # forgotten
    assert limiter.wait("a9", 9.0) == 1   # remembered
    limiter.failed("a6", 9.5)             # a6 is now the most recent: a7 goes next
    limiter.failed("b", 9.5)
    assert len(limiter) == 4
    assert limiter.wait("a6", 9.5) == 2
    assert limiter.wait("a7", 9.5) == 0


def test_idle_addresses_are_forgotten() -> None:
    limiter = alone()
    for t in range(7):
        limiter.failed("a", float(t))
    limiter.failed("b", 300.0)
    assert len(limiter) == 2
    assert limiter.wait("a", 605.0) == 0
    assert len(limiter) == 2          # a's last failure was at 6.0: not yet 10 minutes
    assert limiter.wait("c", 606.0) == 0
    assert len(limiter) == 1          # a is forgotten, b is not
    limiter.failed("a", 606.0)
    assert limiter.wait("a", 606.0) == 1  # a starts again from the first step
    assert limiter.wait("b", 900.0) == 0
    assert len(limiter) == 1          # b is forgotten, a (since 606.0) is not
    assert limiter.wait("c", 1206.0) == 0
    assert len(limiter) == 0


def test_the_limiter_refuses_incoherent_numbers() -> None:
    for numbers in ({"base": 0.0}, {"base": 10.0, "cap": 5.0}, {"cap": 1000.0},
                    {"global_limit": 0}, {"max_addresses": 0}, {"global_window": 0.0}):
        with pytest.raises(ValueError):
            GuessLimiter(**numbers)
