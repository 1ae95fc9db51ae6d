"""Issue 25, a LAN game in progress as a seat sees it (points 2, 3 and 8): a drawn card that
waits for an away player's key, a hand's summary left open while the next hand goes on, and
going on without a player (said before it is agreed, and a quit said as a quit)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input

from cli.table.drawing import BOX_BOTTOM, HEAVY_BOTTOM
from cli.table.lan import LanTableApp
from p2p10.bots import POLICIES
from p2p10.narrate import Narrator, Voice, going_on_cost
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.table import fold
from p2p10.wire import AT_TABLE, LEFT, PRESENCE, READING, encode_presence, pack
from protocol.lan import Timing, taken_note
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from tests.test_away import AWAY
from tests.test_away import Table as AwayTable
from tests.test_lan_screen import TIMEOUT, Screens, open_host
from tests.test_play_app import Keyboard, Terminal, type_move


def one_line(text: str) -> str:
    """The screen's words with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


@asynccontextmanager
async def ann_bob_cy(tmp_path: Path, away_after: float
                     ) -> AsyncIterator[tuple[PipeInput, list[LanTableApp], list[asyncio.Future[object]]]]:
    """Ann's LAN table for three, her screen on a pipe (120x30); Bob and Cy greedy bots on
    machines of their own. The pipe, the screens as they open, and the three machines' tasks
    (Cy's last: a test stops it to take Cy's machine away); all stopped afterwards."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal(120, 30)):
        screens = Screens()
        _host, hosting, address, _said = await open_host(tmp_path, 3, None, front=screens.front,
                                                         timing=Timing(away_after=away_after))
        bob = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None)
        cy = Joiner(address, "Cy", "greedy", "127.0.0.1", tmp_path / "cy", say=lambda _: None)
        tasks: list[asyncio.Future[object]] = [hosting, asyncio.ensure_future(bob.run()),
                                               asyncio.ensure_future(cy.run())]
        try:
            yield pipe, screens.apps, tasks
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_card_waiting_for_an_away_players_key_is_shown_as_pending(tmp_path: Path) -> None:
    """Point 3: Cy's machine is gone and Ann draws: her card needs Cy's key. Her screen still
    says it is her turn, counts and shows the card as coming (11 cards: 10 and one on its way),
    says whose key it waits for and when the table may go on without Cy, and the hint key
    says so too instead of claiming the table does not know her cards."""
    async with ann_bob_cy(tmp_path, 300.0) as (pipe, apps, tasks):
        await asyncio.wait_for(_until_apps(apps), TIMEOUT)
        kb = Keyboard(apps[0], pipe)
        await kb.until(kb.my_turn, TIMEOUT)
        tasks[2].cancel()  # Cy's machine is gone
        await asyncio.gather(tasks[2], return_exceptions=True)
        await kb.keys("d")  # the drawn card needs Cy's share of the key
        await kb.until(lambda: "Cy is out of reach" in kb.screen(), TIMEOUT)
        screen = kb.screen()
        words = one_line(screen)
        assert "Your turn" in screen, screen
        assert "11 cards" in words, screen
        assert screen.count(BOX_BOTTOM) + screen.count(HEAVY_BOTTOM) == 11, screen  # one pending
        assert "Your card is waiting for Cy's key" in words, screen
        assert "the table can go on without Cy in" in words, screen
        await kb.keys("i")
        words = one_line(kb.screen())
        assert "does not know your cards" not in words, words
        assert "No hint yet: your card is waiting for Cy's key" in words, words


async def _until_apps(apps: list[object]) -> None:
    await _until_count(apps, 1)


async def _play_hand_by_keys(kb: Keyboard, seat: int) -> None:
    """Type the seat's moves (a greedy bot's) until the hand's summary opens."""
    rng = random.Random(5)
    app, local = kb.app, kb.local
    while True:
        await kb.until(lambda: kb.my_turn() or app.screen == "hand", TIMEOUT)
        if app.screen == "hand":
            return
        before = kb.entries()
        await type_move(kb, POLICIES["greedy"](local.view(), seat, rng), [])
        await kb.until(lambda: kb.entries() > before, TIMEOUT)  # noqa: B023 - awaited at once


async def test_a_player_reading_the_summary_is_told_the_turn_and_the_others_are_told_why(
        tmp_path: Path) -> None:
    """Points 2 and 8: Bob plays hand 1 by keys and stays on its summary while the table goes
    on. His summary says that it is his turn in the next hand and how to get there; Ann's title says
    that Bob is reading the summary (not that he is thinking). Then Bob quits: Ann reads that
    Bob left the table, in the title and in the move log, not that he is out of reach."""
    with (create_pipe_input() as ann_keys, create_pipe_input() as bob_keys,
          create_app_session(input=ann_keys, output=Terminal(120, 30))):
        screens = Screens()
        said: list[str] = []
        host = Host("Ann", 2, RuleSet.parse(["hands=3"]), "greedy", "127.0.0.1",
                    save_dir=tmp_path / "ann", say=said.append, advertised=False, front=screens.front)
        tasks = [asyncio.ensure_future(host.run())]
        try:
            await asyncio.wait_for(_until_apps(said), TIMEOUT)
            address = said[0].removeprefix("listening on ")
            bob = Joiner(address, "Bob", None, "127.0.0.1", tmp_path / "bob", say=lambda _: None,
                         front=screens.front)
            with create_app_session(input=bob_keys, output=Terminal(120, 30)):
                tasks.append(asyncio.ensure_future(bob.run()))  # his screen reads his own keys
            await asyncio.wait_for(_until_count(screens.apps, 2), TIMEOUT)
            ann_app, bob_app = sorted(screens.apps, key=lambda app: app.seat)
            ann, bob_kb = Keyboard(ann_app, ann_keys), Keyboard(bob_app, bob_keys)
            await _play_hand_by_keys(bob_kb, 1)
            assert "Hand 1 is over" in bob_kb.screen()
            await ann.until(lambda: ann_app.screen == "hand", TIMEOUT)
            await ann.keys("Enter")  # Ann goes back to the table; Bob reads on
            # (Ann may skip Bob to the end of hand 2: then his turn comes in hand 3.)
            await bob_kb.until(lambda: bob_app.lan.my_turn(), TIMEOUT)
            words = one_line(bob_kb.screen())
            number = bob_app.lan.view().hand_no + 1
            assert f"Hand {number - 1} is over" in words, words
            assert f"Your turn in hand {number}: Enter takes you to the table." in words, words
            reading = "Bob is reading the last hand's summary"
            await _back_to_the_table_until(ann, lambda: reading in ann.screen())
            assert "Bob is thinking" not in ann.screen()
            await bob_kb.keys("Enter")  # back at the table: no longer reading
            await _back_to_the_table_until(
                ann, lambda: ann_app.screen == "table" and reading not in ann.screen())
            await bob_kb.keys("q", "y")  # Bob quits
            await asyncio.wait_for(tasks[1], TIMEOUT)
            await _back_to_the_table_until(ann, lambda: "Bob left the table (" in ann.screen())
            screen = ann.screen()
            assert "out of reach" not in screen, screen
            assert "Bob left the table." in ann_app.narrator.lines, ann_app.narrator.lines
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def _back_to_the_table_until(kb: Keyboard, condition: Callable[[], bool]) -> None:
    """Close every hand's summary on ``kb``'s screen until ``condition`` holds (a hand may end
    while the other player reads: Ann may skip Bob to its end, two players being at the table)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out; the screen:\n{kb.screen()}"
        if kb.app.screen == "hand":
            await kb.keys("Enter")
        await asyncio.sleep(0.01)


async def _until_count(items: list[object], count: int) -> None:
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while len(items) < count:
        assert asyncio.get_running_loop().time() < deadline, f"{len(items)} of {count} came"
        await asyncio.sleep(0.01)


def test_a_machine_says_where_its_own_player_is_and_nothing_more() -> None:
    """A64: the presence message ([5, state], PROTOCOL 6.2.2) speaks for the seat of the link it
    came on only; a reader whose link goes is no longer shown reading, a machine that left is
    back only once it links again (not by saying so: no flood of departures in the move log);
    any other state is a fault against the sender; and it is never passed on (so a seat cannot
    make another look gone or reading)."""
    peer = Peer(0, Ed25519PrivateKey.generate())
    peer.receive(encode_presence(LEFT), 1, 1.0)
    peer.receive(encode_presence(READING), 2, 1.0)
    assert (peer.presence_of(1), peer.presence_of(2)) == (LEFT, READING)
    assert peer.take_outbox() == []  # not relayed
    peer.linked(2, False, 2.0)
    assert peer.presence_of(2) == AT_TABLE
    peer.receive(encode_presence(AT_TABLE), 1, 2.5)  # gone stays gone on the link it said so
    assert peer.presence_of(1) == LEFT
    peer.linked(1, True, 3.0)
    assert peer.presence_of(1) == AT_TABLE
    peer.receive(pack([PRESENCE, 7]), 2, 4.0)
    assert peer.faults[-1].seat == 2 and peer.presence_of(2) == AT_TABLE
    peer.take_outbox()
    peer.tell(READING)  # said once, and again first on every new link
    assert [data for _dest, data in peer.take_outbox()] == [encode_presence(READING)]
    peer.linked(3, True, 5.0)
    assert (3, encode_presence(READING)) in peer.take_outbox()


def test_the_player_left_behind_reads_one_true_message_about_their_seat() -> None:
    """Point 8: the others went on without Cyd mid-hand. What Cyd's screen tells him (the move
    log told from his log, as after ``p2p10 resume``, then the note about his seat) says once
    what happens to his seat, and truly: the hand is dealt again without him, and the seat is
    his again from the next hand (his machine, running again, asks for it back); not also that
    from the next hand he plays as a bot."""
    t = AwayTable(11)
    t.stuck_mid_hand()
    t.go_on()
    narrator = Narrator(["Ann", "Bob", "Cyd"], AWAY, second_person=True)
    table = None
    for entry in t.log():
        table = fold(None, entry) if table is None else table.apply(entry)
        narrator.update(table.engine, table)
    assert table is not None
    note = taken_note(table, AWAY)
    assert note is not None
    told = [*narrator.lines, note]
    about_the_seat = [line for line in told if "next hand" in line or "as a bot" in line]
    assert about_the_seat == [note], told
    assert "dealt again without you" in note and "yours again from the next hand" in note, note


def test_going_on_says_who_loses_the_phase_they_laid_down() -> None:
    """Point 8: asked before agreeing, the question says the hand under way is dealt again
    without the missing player and names who loses the phase they laid down in it (as Ann
    hears it: "you" for her)."""
    t = AwayTable(11)

    def laid_and_waiting() -> bool:
        table = t.peers[0].table
        expect = table.expected() if table else None
        return (table is not None and expect is not None and expect.seat == AWAY
                and expect.kind == "move" and any(table.engine.down[s] is not None for s in (0, 1)))

    t.network.run(laid_and_waiting)
    table = t.peers[0].table
    assert table is not None
    state = table.engine
    voice = Voice(table.names, 0, second_person=True)
    question = " ".join(going_on_cost(voice, state, table.away_group(AWAY), "Cyd"))
    laid = [s for s in (0, 1) if state.down[s] is not None]
    expected = {(0,): "You lose the phase you laid down.", (1,): "Bob loses the phase laid down.",
                (0, 1): "You and Bob lose the phases laid down."}[tuple(laid)]
    assert question == f"Deal hand {state.hand_no + 1} again without Cyd? {expected}"


async def test_before_going_on_the_screen_says_what_it_costs_and_the_rules_say_why(tmp_path: Path) -> None:
    """Point 8: Cy's machine is gone while Ann's drawn card waits for Cy's key. Pressing g asks
    whether to deal the hand again without Cy and says what is lost; the line under the hand
    says why; the rules screen explains going on, what it costs and why."""
    async with ann_bob_cy(tmp_path, 1.0) as (pipe, apps, tasks):
        await asyncio.wait_for(_until_apps(apps), TIMEOUT)
        app = apps[0]
        kb = Keyboard(app, pipe)
        await kb.until(kb.my_turn, TIMEOUT)
        tasks[2].cancel()  # Cy's machine is gone
        await asyncio.gather(tasks[2], return_exceptions=True)
        await kb.keys("d")
        await kb.until(lambda: "g  go on without Cy" in kb.screen(), TIMEOUT)  # the key, offered
        await kb.keys("g")
        state = app.lan.view()
        assert app.prompt is not None, kb.screen()
        question = app.prompt.question
        assert question.startswith(f"Deal hand {state.hand_no + 1} again without Cy? "), question
        laid = [s for s in (0, 1) if state.down[s] is not None]
        assert ("lose" in question) == bool(laid) and ("lost" in question) == (not laid), question
        words = one_line(kb.screen())
        assert question in words, words  # the status line has room for it all
        assert "Without Cy's key no card of this hand can be opened." in words, words
        terminal = app.app.output
        assert isinstance(terminal, Terminal)
        terminal.size = Size(rows=24, columns=80)  # the question may lose its second sentence
        lost = question.split("? ", 1)[1]
        assert lost in one_line(kb.screen()), kb.screen()  # said under the hand, whole
        await kb.keys("n")
        await kb.keys("r", *["↓"] * 40)  # its last lines: the rules at a LAN table
        words = one_line(kb.screen())
        assert "Going on without a player" in words, words
        assert "dealt again from its start without them" in words and "phases too, is lost" in words
