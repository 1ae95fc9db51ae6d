"""A table on this machine, in real time: the user's peer and bot peers, for ``p2p10 play``.

Every seat is a separate :class:`~p2p10.peer.Peer` with its own keys and secrets, exactly as on
a LAN; their messages are passed in memory at once. Bots move after ``pace`` seconds, so a
person can follow the game. The user's log is written to ``save_dir`` as the game goes, so
``p2p10 replay`` and ``p2p10 audit`` work on it, even if the game is quit.

Beside the log go every seat's secrets (the user's ``STEM.p2p10-secrets``, each bot's
``STEM.seatN.p2p10-secrets``) and the table's settings (``STEM.p2p10-local``): see
:mod:`protocol.storage`. From them :meth:`LocalTable.resume` starts every seat again, each one
from the user's log, with the checks of ``Peer.restore`` as a LAN seat's resume does: the log is
read and checked once for every seat, from this machine's checkpoint of it where one fits
(:mod:`protocol.checkpoint`, kept as the table plays). The bots keep no log of
their own: an entry a bot signed that never reached the user's peer was never saved nor shown
anywhere, since every seat lives in this one process, so the bot writing another one for that
position after a resume is seen by nobody. Its hand secrets were saved before any entry that
depends on them, so a hand key it published is always backed by its secrets.

The driver is asyncio: :meth:`LocalTable.run` delivers messages in small steps, yielding to
the event loop between them so a screen stays responsive while the deck is shuffled, and calls
``on_change`` after every new log entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from p2p10.bots import POLICIES, Policy
from p2p10.errors import IllegalMove, P2P10Error, SavedFileError
from p2p10.events import SeatEvent
from p2p10.i18n import _
from p2p10.log import Entry
from p2p10.peer import Peer
from p2p10.peer_parts import addressed
from p2p10.rules import RuleSet
from p2p10.saved_log import parse_saved
from p2p10.table import TableState, fold
from protocol import checkpoint, data_home
from protocol.checkpoint import SavedLog, read_saved
from protocol.memory import make_peers, seeded_bytes, sit_downs_for
from protocol.saved_index import Found, SavedIndex, Stamp
from protocol.seat_screen import PeerSeat
from protocol.storage import (
    LOG_SUFFIX,
    LocalSettings,
    LogWriter,
    SeatFiles,
    SecretsWriter,
    read_log,
    resume_peer,
)

USER = 0


def data_dir() -> Path:
    """Where games are saved: ``$XDG_DATA_HOME/p2p10/games`` (``~/.local/share`` by default)."""
    return data_home() / "games"


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits where: a name, and the bot policy (None for the user)."""

    name: str
    policy: str | None


class GameOver(P2P10Error):
    """A saved game that has ended: there is nothing to resume."""


@dataclass(frozen=True, slots=True)
class SavedGame:
    """An unfinished game against bots, as a start screen lists it: its log, when it was
    last played, the players, the hand in play (or the next to be dealt, from 1) and the
    user's phase in it (None if the user sits that hand out)."""

    path: Path
    when: datetime
    names: tuple[str, ...]
    hand: int
    phase: int | None


class LocalTable(PeerSeat):
    """The user at seat 0 against bots, every seat its own peer (see the module docstring)."""

    def __init__(self, name: str = "You", bots: int = 3, level: str = "normal",
                 rules: RuleSet | None = None, seed: int | None = None,
                 save_dir: Path | None = None, pace: float = 0.6) -> None:
        if not 1 <= bots <= 5:
            raise IllegalMove(_("a table has 1 to 5 bots besides you, not {n}").format(n=bots))
        if level not in POLICIES:
            # TRANSLATORS: {choices} are the bot levels as the --level option takes them.
            raise IllegalMove(_("unknown bot level {level!r}; choose from {choices}").format(
                level=level, choices=", ".join(POLICIES)))
        self.rules = rules or RuleSet()
        settings = LocalSettings(((name, None),) + tuple((f"Bot {i} ({level})", level)
                                                         for i in range(1, bots + 1)), pace, seed)
        peers = make_peers([None] * (bots + 1), seed)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.sit_downs = sit_downs_for(peers, [name for name, _level in settings.seats], self.rules, seed)
        self.game_id = TableState.game_id_for(self.sit_downs)
        log_path = (save_dir or data_dir()) / f"{stamp}-{self.game_id.hex()[:8]}{LOG_SUFFIX}"
        self._seat_all(settings, peers, log_path, random.Random(seed), new=True)

    def _seat_all(self, settings: LocalSettings, peers: list[Peer], log_path: Path,
                  rng: random.Random, new: bool) -> None:
        """Seat ``peers`` by ``settings`` and save the game at ``log_path`` as it goes: the
        user's log, every seat's secrets, and (for a ``new`` game, before anything else) every
        seat's identity key and the settings."""
        self.pace = settings.pace
        self.seats = [Seat(name, policy) for name, policy in settings.seats]
        self.policies: list[Policy | None] = [POLICIES[s.policy] if s.policy else None for s in self.seats]
        self._rng = rng
        self.peers = peers
        self.log_path = log_path
        files = SeatFiles(log_path)
        self._secrets: list[SecretsWriter] = []
        for peer in peers:
            writer = SecretsWriter(_secrets_of(files, peer.seat))
            if new:
                writer.add_identity(peer.seat, peer.identity.private_bytes_raw())
            peer.hooks.listen(secret=writer.add_hand)
            self._secrets.append(writer)
        if new:
            settings.save(files.local)
        self._log = LogWriter(log_path)
        self._keeper = checkpoint.Keeper(self.user, self._log)
        self.user.hooks.listen(entry=self._saved)
        self._listeners: list[Callable[[], None]] = []
        self._changed = asyncio.Event() if _loop_running() else None
        self.started = False

    @classmethod
    def resume(cls, log_path: Path, pace: float | None = None) -> LocalTable:
        """The game against bots saved at ``log_path``, every seat started again from its files
        exactly where the log stops (:meth:`start` then has each seat write what is due); it
        writes on to the same files. ``pace`` overrides the saved one.

        Raises :class:`GameOver` if the game has ended, and :class:`SavedFileError` naming the
        file if one is missing, damaged or belongs to another game, if the log is not one of a
        game against bots on this machine, or if it never got its table entry."""
        files = SeatFiles(log_path)
        if not log_path.is_file():
            raise SavedFileError(_("no game log at {path}").format(path=log_path))
        settings = LocalSettings.read(files.local) if files.local.exists() else None
        seed = settings.seed if settings is not None else None
        # Every seat goes on from this one log: it is read and checked once, for all of them.
        saved = read_saved(log_path)
        user = _restored_seat(files, USER, seed, saved)
        table = user.table
        if table is not None and table.expected() is None:
            winner = table.engine.winner
            if winner is None:
                raise GameOver(_("that game is over (nobody won)"))
            raise GameOver(_("that game is over ({name} won)").format(name=table.given_names[winner]))
        if settings is None:
            # TRANSLATORS: {settings} is the name of a file; 'p2p10 resume' is a command: keep it.
            raise SavedFileError(_("{path} is not a game against bots on this machine (there is no "
                                   "{settings} beside it); a LAN seat goes on with 'p2p10 resume'").format(
                path=log_path, settings=files.local.name))
        if table is None:
            raise SavedFileError(_("{path}: the game never started (the log has no table entry)").format(
                path=log_path))
        if (list(table.given_names) != [name for name, _level in settings.seats]
                or settings.seats[USER][1] is not None
                or any(policy not in POLICIES for _name, policy in settings.seats[USER + 1:])):
            raise SavedFileError(_("{settings}: its seats are not the user and the bots of {log}").format(
                settings=files.local, log=log_path.name))
        peers = [user] + [_restored_seat(files, seat, seed, saved)
                          for seat in range(USER + 1, len(settings.seats))]
        for seat, peer in enumerate(peers):
            if peer.seat != seat:
                raise SavedFileError(_("{path} holds the secrets of seat {seat}, not seat {wanted}").format(
                    path=_secrets_of(files, seat), seat=peer.seat + 1, wanted=seat + 1))
        if pace is not None:
            settings = dataclasses.replace(settings, pace=pace)
        written = len(saved.entries)  # so that every resume of a seeded game draws afresh
        rng = random.Random(f"{seed}/resume{written}") if seed is not None else random.Random()
        local = cls.__new__(cls)
        local.rules = table.rules
        local.sit_downs = list(table.sit_downs)
        local.game_id = table.game_id
        local._seat_all(settings, peers, log_path, rng, new=False)
        return local

    # -------------------------------------------------------------------- reading

    @property
    def user(self) -> Peer:
        """The user's own peer."""
        return self.peers[USER]

    @property
    def over(self) -> bool:
        """True once the game has a winner (or a peer froze on a violation)."""
        return self.user.finished or any(p.stopped for p in self.peers)

    def dealing(self) -> tuple[int, int] | None:
        """While a hand is being set up: (entries written, entries needed); None in play."""
        return dealing_progress(self.table, len(self.seats))

    @property
    def names(self) -> list[str]:
        """The players' names, in seat order."""
        return [seat.name for seat in self.seats]

    # --------------------------------------------------------------------- input

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every new entry in the user's log."""
        self._listeners.append(listener)

    def play(self, move: SeatEvent) -> None:
        """The user's move; raises :class:`IllegalMove` with a reason, changing nothing."""
        self.user.play(move)
        self._wake()

    # ------------------------------------------------------------------- driving

    def start(self) -> None:
        """Set the table going: the user's peer writes the table entry of a new game; in a
        resumed one, every seat writes what is due from it."""
        if self.started:
            return
        self.started = True
        if self.user.table is None:
            self.user.open_table(self.sit_downs)
            return
        now = time.monotonic()
        for peer in self.peers:
            peer.poll(now)

    def step(self) -> bool:
        """Deliver one round of pending messages; True if anything moved."""
        moved = False
        for _delivered in self.deliveries():
            moved = True
        return moved

    def deliveries(self) -> Iterator[None]:
        """Deliver one round of pending messages, one step per message: a caller may let the
        screen draw between two (a hand's end, its reveals and the next hand's shuffles come in
        one round, and their checks take a while)."""
        for src, peer in enumerate(self.peers):
            for target, data in addressed(peer.take_outbox(), src, len(self.peers)):
                self.peers[target].receive(data, src, time.monotonic())
                yield

    def bot_move(self) -> bool:
        """If a bot is due to move, make its move now; True if one moved."""
        table = self.table
        expect = table.expected() if table else None
        if expect is None or expect.kind != "move" or expect.seat == USER:
            return False
        policy = self.policies[expect.seat]
        assert policy is not None
        peer = self.peers[expect.seat]
        peer.play(policy(peer.view(), expect.seat, self._rng))
        return True

    held = False  # the user is reading (a hand's summary): the bots wait

    def hold(self, held: bool) -> None:
        """Make the bots wait (True) while the user reads, or let them go on (False)."""
        self.held = held
        self._wake()

    def set_pace(self, seconds: float) -> None:
        """Have the bots wait ``seconds`` before each move from now on, the move a bot is
        waiting to make too (the time it has waited counts)."""
        self.pace = max(0.0, seconds)
        self._wake()

    async def run(self) -> None:
        """Play until the game is over: pass messages, pace the bots, wait for the user (and
        while the table is held)."""
        self._changed = asyncio.Event()
        self.start()
        while not self.over:
            moved = False
            for _delivered in self.deliveries():
                moved = True
                await asyncio.sleep(0)  # let the screen draw between two messages taken
            if moved:
                continue
            if self.my_turn() or self.held:
                self._changed.clear()
                await self._changed.wait()
                continue
            table = self.table
            expect = table.expected() if table else None
            if expect is not None and expect.kind == "move":
                await self._bot_thinks(self._changed)
                if not self.held:  # held while the bot took its time
                    self.bot_move()
                continue
            await asyncio.sleep(0)
        self.step()

    async def _bot_thinks(self, changed: asyncio.Event) -> None:
        """Wait ``pace`` seconds from now, following a pace changed meanwhile (``changed`` is
        set on every change); cut short when the table is held."""
        loop = asyncio.get_running_loop()
        since = loop.time()
        await asyncio.sleep(0)  # (at pace 0 too: the screen draws between the bots' moves)
        while not self.held and (left := since + self.pace - loop.time()) > 0:
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)

    def run_to_end(self, user_policy: Policy) -> None:
        """Play a whole game at once with ``user_policy`` in the user's seat (for tests)."""
        self.start()
        rng = random.Random(0)
        while not self.over:
            if self.step():
                continue
            if self.my_turn():
                self.play(user_policy(self.view(), USER, rng))
            elif not self.bot_move():
                raise RuntimeError("the table is stuck: nobody can write")
        self.step()

    def close(self) -> None:
        """Close the files (the log stays where it is). Once the game has a winner, the bots'
        secrets go: they serve only a resume, and the log holds all the game needs of them by
        then (every hand's reveals). So :func:`unfinished_games` need not fold the logs of
        finished games to leave them out. The settings stay: they are what tells the bots from
        the person (each bot sits down under a key of its own), for ``p2p10 export``."""
        self._keeper.keep()  # (not once the game is over: nothing resumes it)
        self._log.close()
        self._index()
        for writer in self._secrets:
            writer.close()
        if self.user.finished:
            files = SeatFiles(self.log_path)
            for seat in range(USER + 1, len(self.peers)):
                files.bot_secrets(seat).unlink(missing_ok=True)
            checkpoint.forget(self.log_path)

    # ------------------------------------------------------------------ internals

    def _saved(self, entry: Entry) -> None:
        self._log.add(entry)
        self._keeper.entry_added(entry)
        for listener in self._listeners:
            listener()

    def _index(self) -> None:
        """Note in the folder's index of saved games what this log holds now, from the user's
        own fold: the next start screen need not fold it (:mod:`protocol.saved_index`)."""
        table, stamp = self.user.table, Stamp.of(self.log_path)
        if table is None or stamp is None or self.user.stopped or table.seq != len(self._log.records):
            return
        index = SavedIndex(self.log_path.parent)
        index.put(self.log_path, stamp, _found(table))
        index.save()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()


def unfinished_games(folder: Path | None = None, limit: int | None = None) -> list[SavedGame]:
    """The games against bots saved in ``folder`` (:func:`data_dir` by default) that
    :meth:`LocalTable.resume` can go on with, the most recently played first, at most ``limit``
    of them. A LAN seat's log (no bots' secrets and settings beside it), a finished game, and one
    whose files are missing or do not read are left out. What each log holds is read from the
    folder's index of saved games (:mod:`protocol.saved_index`); only a log the index does not
    have as it is now is folded (without the end-of-hand checks of its proofs: a resume makes
    them all), and the index is updated. With a ``limit``, only the newest files are looked at,
    so a start screen opens in time however many games are kept."""
    where = folder or data_dir()
    stamps: dict[Path, Stamp] = {}
    for path in where.glob(f"*{LOG_SUFFIX}"):
        if (stamp := Stamp.of(path)) is not None:
            stamps[path] = stamp
    index = SavedIndex(where)
    index.keep_only(list(stamps))
    found: list[SavedGame] = []
    for path in sorted(stamps, key=lambda p: stamps[p].mtime_ns, reverse=True):
        if limit is not None and len(found) >= limit:
            break
        if (game := _unfinished(path, stamps[path], index)) is not None:
            found.append(game)
    index.save()
    return found


def _unfinished(path: Path, stamp: Stamp, index: SavedIndex) -> SavedGame | None:
    files = SeatFiles(path)
    try:
        settings = LocalSettings.read(files.local) if files.local.exists() else None
        if settings is None or not files.secrets.exists() or not all(
                files.bot_secrets(seat).exists() for seat in range(USER + 1, len(settings.seats))):
            return None
    except (P2P10Error, OSError):
        return None
    known, found = index.lookup(path, stamp)
    if not known:
        found = _look_into(path)
        index.put(path, stamp, found)
    if found is None:
        return None
    return SavedGame(path, datetime.fromtimestamp(stamp.mtime_ns / 1e9), found.names, found.hand, found.phase)


def _look_into(path: Path) -> Found | None:
    """What the log at ``path`` holds for a start screen if it is an unfinished game."""
    folded = fold_unfinished(path, lambda: read_log(path))
    return None if folded is None else _found(folded[0])


def _found(table: TableState) -> Found | None:
    """A table as a start screen lists it; None once its game is over."""
    if table.expected() is None:
        return None
    hand = table.hand.number + 1 if table.hand is not None else table.hands_started + 1
    return Found(tuple(table.given_names), hand, table.engine.phase_of(USER))


def fold_unfinished(path: Path, records: Callable[[], Iterable[bytes]]
                    ) -> tuple[TableState, datetime, int] | None:
    """A saved log's ``records`` folded without the end-of-hand checks of their proofs (a
    resume makes them all), or taken from this machine's checkpoint of the whole log where one
    fits it (:mod:`protocol.checkpoint`): the table, when the file was last written, and the
    hand in play (or the next to be dealt, from 1); None if the game is over or the file does
    not read."""
    table: TableState | None = None
    try:
        stored = list(records())
        entries = parse_saved(stored)
        table = checkpoint.load(path, stored, entries) if entries else None
        if table is None or table.seq != len(entries):
            table = None
            for entry in entries:
                table = fold(table, entry, postpone=True)  # the hands' checks never made
        when = datetime.fromtimestamp(path.stat().st_mtime)
    except (P2P10Error, OSError):
        return None
    if table is None or table.expected() is None:
        return None
    return table, when, table.hand.number + 1 if table.hand is not None else table.hands_started + 1


def _secrets_of(files: SeatFiles, seat: int) -> Path:
    """The secrets file of ``seat`` at a game against bots: the user's, or a bot's."""
    return files.secrets if seat == USER else files.bot_secrets(seat)


def _restored_seat(files: SeatFiles, seat: int, seed: int | None, saved: SavedLog) -> Peer:
    """The peer of ``seat``'s secrets file started again from the game's log (``saved``, read
    and checked once for every seat); seeded, its random source is another reproducible one at
    every resume."""
    return resume_peer(files.log, _secrets_of(files, seat), saved=saved,
                       rng_bytes=seeded_bytes(seed, f"seat{seat}/resume{len(saved.entries)}"))


def dealing_progress(table: TableState | None, players: int) -> tuple[int, int] | None:
    """While a hand is being set up: (entries written, entries needed) of keys, shuffles and
    deal tokens, for a progress bar; None once the hand is in play."""
    if table is None:
        return (0, 3 * players)
    hand = table.hand
    n = players
    if hand is None:
        return (0, 3 * n) if table.expected() is not None else None
    if hand.stage == "keys":
        return (len(hand.publics), 3 * n)
    if hand.stage == "shuffle" and len(hand.rounds) == 1:
        return (n + len(hand.rounds[0].decks), 3 * n)
    if hand.stage == "deal_tokens":
        return (2 * n + hand.batches, 3 * n)
    return None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
