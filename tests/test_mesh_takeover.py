"""The mesh of a machine that carries a seat whose own machine came back (issue 24, point 10;
attack catalogue A62): what is for that seat reaches its machine's link as well as the bot this
machine runs for it, and the machine does not leave the game before the one it stood in for
holds the whole log (else a machine healed at the moment the others went on could be left with
nobody to ask)."""

from __future__ import annotations

import asyncio
from typing import cast

from p2p10.wire import encode_want
from protocol.memory import make_peers, open_table
from protocol.mesh import GONE_AFTER, Mesh
from protocol.mesh_link import Link, Socket


def carrying_seat_3_with_its_machine_linked() -> tuple[Mesh, Link]:
    """Seat 1's mesh, running a bot for seat 3 whose own machine is linked again."""
    peers = make_peers([None, None, None], seed=7)
    open_table(peers, ["Ann", "Bob", "Cy"], seed=7)  # seat 1's log: the table entry, ...
    peers[0].take_outbox()  # (sent already)
    mesh = Mesh(peers[0], b"t" * 16, clock=lambda: 100.0)
    mesh.seat_table([mesh.key] * 3, [None] * 3)
    mesh.add_local(peers[2])
    link = Link(2, cast(Socket, None))  # never written to: pump only queues
    mesh.links[2] = link
    return mesh, link


def test_what_is_for_a_carried_seat_reaches_its_machine_too() -> None:
    async def go() -> None:
        mesh, link = carrying_seat_3_with_its_machine_linked()
        to_all, to_seat_3 = encode_want(4), encode_want(5)
        mesh.peer._outbox.extend([(None, to_all), (2, to_seat_3)])
        mesh.pump()
        queued = [link.queue.get_nowait() for _ in range(link.queue.qsize())]
        # (then what the conversation with the bot it carries brings: the entries it asked for)
        assert queued[:2] == [to_all, to_seat_3]

    asyncio.run(go())


def test_the_machine_of_a_carried_seat_is_waited_for_while_it_is_linked() -> None:
    async def go() -> None:
        mesh, _link = carrying_seat_3_with_its_machine_linked()
        end = len(mesh.peer.log)
        assert end > 0
        mesh.holds[1] = end  # seat 2 holds it all
        assert not mesh._everybody_holds_it(100.0)  # seat 3's machine has shown nothing yet
        mesh.holds[2] = end
        assert mesh._everybody_holds_it(100.0)
        del mesh.holds[2]
        del mesh.links[2]  # its machine went again: the bot it carries holds the log
        mesh.unlinked_at[2] = 100.0 - GONE_AFTER
        assert mesh._everybody_holds_it(100.0)

    asyncio.run(go())
