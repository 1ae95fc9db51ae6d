"""Two machines on two networks, in network namespaces made for one test and gone after it.

Three namespaces, named after this process's id and a counter (``p2p10-<pid>-<n>-a`` and so
on), so that runs side by side never meet:

* ``a``: the subnet 10.77.1.0/24, its machine at 10.77.1.2;
* ``b``: the subnet 10.77.2.0/24, its machine at 10.77.2.2;
* ``r``: the router between them, 10.77.1.1 and 10.77.2.1, with IPv4 forwarding on.

A veth pair joins ``a`` to ``r`` and another ``b`` to ``r`` (each made with its ends already in
their namespaces: nothing appears in the namespace the tests run in); ``a`` and ``b`` route
everything through ``r``. ``lo`` is up in each. Nothing routes multicast (no multicast router
runs in ``r``), so Zeroconf in ``a`` is never heard in ``b``: across the router, players
join by ``HOST:PORT``, as across a VPN or a forwarded port.

:meth:`Networks.behind_nat` then puts both machines behind NAT, as two homes are: forwarding
off in ``r``, so that neither side reaches the other's subnet at all, and a few TCP ports
forwarded in userspace by this module's ``forward`` probe, run in ``r``. Nothing but ``ip``
(iproute2) and Python is needed: no ``nft``, no ``iptables``.

:func:`routed_networks` builds them and always takes them down (every process started in them
killed by process group, then any left in a namespace by id, the veths and the namespaces
deleted), whatever happened in between; the fixture :func:`routed` wraps it. A test skips
only when network namespaces cannot be created here (:func:`namespaces_unavailable`).

Every process a test starts goes through :meth:`Networks.spawn` or :meth:`Networks.run`,
inside one of the namespaces (``ip netns exec``), so no packet leaves the machine.

Run as ``python -m tests.netns COMMAND ...`` this module is also the probes those checks use
inside the namespaces: ``tcp-serve``, ``tcp-ask``, ``mcast-listen``, ``mcast-send``, and the
forwarder, ``forward LISTEN_ADDR:PORT TARGET_ADDR:PORT [LISTEN_ADDR:PORT TARGET_ADDR:PORT ...]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBNET_A = "10.77.1.0/24"
SUBNET_B = "10.77.2.0/24"
HOST_A = "10.77.1.2"  # the machine in a
HOST_B = "10.77.2.2"  # the machine in b
ROUTER_A = "10.77.1.1"  # the router's leg in a's subnet
ROUTER_B = "10.77.2.1"  # the router's leg in b's subnet: b's gateway
MDNS = ("224.0.0.251", 5353)  # where Zeroconf speaks
SETUP_TIMEOUT = 20.0
ASK_TIMEOUT = 5.0  # how long tcp-ask waits for an answer
_COUNTER = itertools.count(1)


class NetnsError(AssertionError):
    """A step of building or checking the networks failed (the test fails, saying which)."""


class StillRunning(NetnsError):
    """A process did not end within its time (:meth:`Networks.finish`)."""


def namespaces_unavailable() -> str | None:
    """Why network namespaces cannot be created here (the reason to skip with), or None when
    they can: tried for real, with a namespace made and deleted at once."""
    prefix = "network namespaces cannot be created here: "
    if os.geteuid() != 0:
        return prefix + "not running as root"
    if shutil.which("ip") is None:
        return prefix + "no `ip` command (iproute2)"
    name = f"p2p10-{os.getpid()}-probe"
    try:
        made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True,
                              timeout=SETUP_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as err:
        return prefix + f"`ip netns add` did not run: {err}"
    if made.returncode != 0:
        return prefix + f"`ip netns add` failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=SETUP_TIMEOUT)
    return None


class Forward(NamedTuple):
    """One port forwarded by the router (:meth:`Networks.behind_nat`): each TCP connection
    taken at ``listen`` (an address of ``r``'s) is met by one the router opens to ``target``."""

    listen: tuple[str, int]
    target: tuple[str, int]

    def __str__(self) -> str:
        return f"{_address(self.listen)} {_address(self.target)}"


@dataclass
class Started:
    """A process started in a namespace: its own process group, its output in two files."""

    label: str
    namespace: str
    args: list[str]
    popen: subprocess.Popen[bytes]
    out: Path
    err: Path

    def stdout(self) -> str:
        return self.out.read_text(errors="replace") if self.out.exists() else ""

    def stderr(self) -> str:
        return self.err.read_text(errors="replace") if self.err.exists() else ""

    def kill(self) -> None:
        """SIGKILL its process group and wait for it."""
        _kill_group(self.popen.pid)
        self.popen.wait(SETUP_TIMEOUT)

    def report(self) -> str:
        """Its command, status and output, for a failure message."""
        status = self.popen.poll()
        return (f"--- {self.label} in {self.namespace} ({'running' if status is None else f'exit {status}'}):"
                f" {' '.join(self.args)}\n[stdout]\n{self.stdout()}[stderr]\n{self.stderr()}")


@dataclass
class Networks:
    """The three namespaces of one test (see the module's doc) and what was started in them."""

    tag: str
    folder: Path  # where the processes' output goes
    a: str = ""
    b: str = ""
    r: str = ""
    links: dict[str, str] = field(default_factory=dict)  # the router's ends: "a"/"b" -> name
    started: list[Started] = field(default_factory=list)
    made: list[str] = field(default_factory=list)  # the namespaces created so far

    def __post_init__(self) -> None:
        self.a, self.b, self.r = (f"p2p10-{self.tag}-{x}" for x in "abr")

    # -- running things inside -------------------------------------------------------------

    def run(self, namespace: str, *args: str, timeout: float = SETUP_TIMEOUT, check: bool = True,
            input: str | None = None, env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
        """``args`` run to the end inside ``namespace`` (its own process group, killed with it
        on a time-out), fed ``input``; :class:`NetnsError` with its output if it fails and
        ``check``."""
        command = ["ip", "netns", "exec", namespace, *args]
        with subprocess.Popen(command, stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True, cwd=ROOT, env=env) as proc:
            try:
                out, err = proc.communicate(input, timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid)
                out, err = proc.communicate()
                raise NetnsError(f"{' '.join(command)} took over {timeout} s:\n{out}{err}") from None
        done = subprocess.CompletedProcess(command, proc.returncode, out, err)
        if check and done.returncode != 0:
            raise NetnsError(f"{' '.join(command)} failed ({done.returncode}):\n{out}{err}")
        return done

    def spawn(self, label: str, namespace: str, args: list[str],
              env: dict[str, str] | None = None) -> Started:
        """``args`` started inside ``namespace`` in a process group of its own, with no input
        and its output in ``FOLDER/LABEL.out`` and ``.err``; killed at the latest on teardown."""
        self.folder.mkdir(parents=True, exist_ok=True)
        out, err = self.folder / f"{label}.out", self.folder / f"{label}.err"
        with out.open("wb") as out_file, err.open("wb") as err_file:
            popen = subprocess.Popen(["ip", "netns", "exec", namespace, *args], stdin=subprocess.DEVNULL,
                                     stdout=out_file, stderr=err_file, env=env, cwd=ROOT,
                                     start_new_session=True)
        started = Started(label, namespace, args, popen, out, err)
        self.started.append(started)
        return started

    def python(self, *args: str) -> list[str]:
        """This module's probes, as a command (``python -m tests.netns ...``)."""
        return [sys.executable, "-m", "tests.netns", *args]

    def report(self) -> str:
        """Every started process's command, status and output, for a failure message."""
        return "\n".join(s.report() for s in self.started) or "(nothing was started)"

    def wait_for(self, started: Started, pattern: str, timeout: float) -> re.Match[str]:
        """The first line of ``started``'s output matching ``pattern``, waited for up to
        ``timeout`` seconds; :class:`NetnsError` with every process's output if it never comes
        (or the process ends first)."""
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(started.stdout())
            if found:
                return found
            ended = started.popen.poll() is not None
            if ended or time.monotonic() > deadline:
                why = "ended" if ended else f"did not within {timeout} s"
                raise NetnsError(f"{started.label} {why} printing a line matching {pattern!r}\n"
                                 + self.report())
            time.sleep(0.02)

    def finish(self, started: Started, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for ``started`` to end; its exit status, or
        :class:`StillRunning` with every process's output."""
        try:
            return started.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise StillRunning(f"{started.label} still running after {timeout} s\n" + self.report()) from None

    # -- building and taking down ----------------------------------------------------------

    def build(self) -> None:
        """The namespaces, veths, addresses and routes of the module's doc."""
        for name in (self.a, self.b, self.r):
            _ip("netns", "add", name)
            self.made.append(name)
        for side, address, router in (("a", HOST_A, ROUTER_A), ("b", HOST_B, ROUTER_B)):
            namespace = getattr(self, side)
            # Interface names are at most 15 characters; both ends are made in place.
            inner, outer = f"{side}{self.tag}", f"r{side}{self.tag}"
            _ip("-n", namespace, "link", "add", inner, "type", "veth", "peer", "name", outer,
                "netns", self.r)
            self.links[side] = outer
            _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", inner)
            _ip("-n", self.r, "addr", "add", f"{router}/24", "dev", outer)
            _ip("-n", namespace, "link", "set", inner, "up")
            _ip("-n", self.r, "link", "set", outer, "up")
            _ip("-n", namespace, "route", "add", "default", "via", router)
        for name in (self.a, self.b, self.r):
            _ip("-n", name, "link", "set", "lo", "up")
        self.run(self.r, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")

    def teardown(self) -> list[str]:
        """Kill everything started (by process group, then whatever is left in the namespaces,
        by id), delete the veths and the namespaces; what could not be undone, if anything."""
        problems: list[str] = []
        for started in self.started:
            _kill_group(started.popen.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                started.popen.wait(5)
            if started.popen.poll() is None:
                problems.append(f"{started.label} (pid {started.popen.pid}) would not die")
        for name in self.made:
            # Only this test's processes can be in its namespaces: any that left its group.
            pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                                  timeout=SETUP_TIMEOUT).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        for outer in self.links.values():  # deleting one end of a veth deletes the pair
            subprocess.run(["ip", "-n", self.r, "link", "del", outer], capture_output=True,
                           timeout=SETUP_TIMEOUT)
        for name in reversed(self.made):
            gone = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True,
                                  timeout=SETUP_TIMEOUT)
            if gone.returncode != 0:
                problems.append(f"ip netns del {name}: {gone.stderr.strip()}")
        self.made.clear()
        return problems

    def leftovers(self) -> list[str]:
        """This test's namespaces and interfaces that still exist (none after teardown)."""
        names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                               timeout=SETUP_TIMEOUT).stdout.split()
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True,
                               timeout=SETUP_TIMEOUT).stdout
        left = [n for n in names if n in (self.a, self.b, self.r)]
        left += [f"link {n}" for n in (f"a{self.tag}", f"b{self.tag}", *self.links.values())
                 if re.search(rf"\b{re.escape(n)}[@:]", links)]
        return left

    # -- what the tests check --------------------------------------------------------------

    def subnet(self, side: str) -> ipaddress.IPv4Network:
        """The subnet of side ``a`` or ``b``, read from its interface as configured."""
        shown = json.loads(self.run(getattr(self, side), "ip", "-j", "-4", "addr", "show",
                                    f"{side}{self.tag}").stdout)
        info = shown[0]["addr_info"][0]
        return ipaddress.ip_interface(f"{info['local']}/{info['prefixlen']}").network

    def route(self, side: str, destination: str) -> str:
        """How side ``a`` or ``b`` reaches ``destination`` (``ip route get``)."""
        return self.run(getattr(self, side), "ip", "route", "get", destination).stdout.strip()

    def tcp_server(self, side: str, address: str, port: int) -> Started:
        """A probe listening on ``address``:``port`` in ``side``'s namespace: it tells each
        connection the address it comes from. Ready when this returns."""
        server = self.spawn(f"tcp-serve-{side}-{port}", getattr(self, side),
                            self.python("tcp-serve", address, str(port)))
        self.wait_for(server, r"^ready$", SETUP_TIMEOUT)
        return server

    def tcp_ask(self, side: str, address: str, port: int, timeout: float = ASK_TIMEOUT) -> str:
        """From ``side``'s namespace, connect to ``address``:``port`` and read the probe's
        answer: ``seen FROM``, or the error the connection met (``error ERRNO-NAME``;
        ``error TimeoutError`` when nothing answered within ``timeout`` seconds)."""
        return self.run(getattr(self, side), *self.python("tcp-ask", address, str(port), str(timeout)),
                        check=False).stdout.strip()

    def multicast_heard(self) -> tuple[bool, bool]:
        """mDNS multicast, heard in ``a``: (from the router's leg in a's subnet, from ``b``).
        The first is the control that the listener hears multicast at all."""
        # b sends first, the router after it: the listener stops a moment after the router's
        # control is heard (anything b's could do, it has done by then), so the window does
        # not depend on how long two processes take to start on a loaded machine.
        listener = self.spawn("mcast-listen-a", self.a,
                              self.python("mcast-listen", HOST_A, MDNS[0], str(MDNS[1]),
                                          str(SETUP_TIMEOUT), "from-router"))
        self.wait_for(listener, r"^ready$", SETUP_TIMEOUT)
        self.run(self.b, *self.python("mcast-send", HOST_B, MDNS[0], str(MDNS[1]), "from-b"))
        self.run(self.r, *self.python("mcast-send", ROUTER_A, MDNS[0], str(MDNS[1]), "from-router"))
        if self.finish(listener, 2 * SETUP_TIMEOUT) != 0:
            raise NetnsError("the multicast listener failed\n" + self.report())
        heard = listener.stdout()
        return "heard from-router" in heard, "heard from-b" in heard

    def behind_nat(self, *forwards: Forward) -> Started:
        """Put both machines behind NAT, as two homes are, with only ``forwards`` through it.

        IPv4 forwarding goes off in ``r``: nothing from one side reaches the other's subnet
        any more, and the router drops it without a word (a connection attempt times out), as
        a home router drops what nobody inside asked for. What crosses goes through the
        forwarder this starts in ``r`` (the ``forward`` probe): for each TCP connection taken
        at a forward's ``listen`` address it opens one to the ``target`` from the router's
        own address (so ``target`` sees the router, as behind a NAT), and copies bytes both
        ways. It prints a line per connection, ``LISTEN from PEER:PORT``, and one when it
        closes (:func:`forwarded_from` reads them).

        The router's legs stand for the homes' public addresses: ``ROUTER_B`` for a's (the
        address b's side sees), ``ROUTER_A`` for b's. Each side reaches both legs (they are
        the router's own addresses: delivered to it, not forwarded), so a machine reaches its
        own forwarded ports at its own public address too, as through a home router that
        loops them back ("hairpin NAT"). The forwarder is ready when this returns."""
        if not forwards:
            raise NetnsError("behind_nat needs at least one forward")
        self.run(self.r, "sh", "-c", "echo 0 > /proc/sys/net/ipv4/ip_forward")
        argv = [part for forward in forwards for part in str(forward).split()]
        forwarder = self.spawn("forwarder", self.r, self.python("forward", *argv))
        self.wait_for(forwarder, r"^ready$", SETUP_TIMEOUT)
        return forwarder


def forwarded_from(forwarder: Started, since: int = 0) -> set[tuple[str, str]]:
    """(the listen address as ``ADDR:PORT``, the dialler's address) of every connection the
    forwarder took, from its output after its first ``since`` characters."""
    output = forwarder.stdout()[since:]
    return set(re.findall(r"^(\S+) from ([\d.]+):\d+$", output, re.M))


def _address(address: tuple[str, int]) -> str:
    return f"{address[0]}:{address[1]}"


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=SETUP_TIMEOUT)
    if done.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)} failed: {done.stderr.strip()}")


def _kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (each started process leads its own)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


@contextlib.contextmanager
def routed_networks(folder: Path) -> Iterator[Networks]:
    """The networks of the module's doc, built for the ``with`` block and always taken down
    after it (an exception in the block or in the building included); skips the test when
    network namespaces cannot be created here. Processes' output goes to ``folder``."""
    reason = namespaces_unavailable()
    if reason is not None:
        pytest.skip(reason)
    networks = Networks(f"{os.getpid()}-{next(_COUNTER)}", folder)  # veth names: 2 + 13 characters
    try:
        networks.build()
        yield networks
    finally:
        problems = networks.teardown()
        left = networks.leftovers()
        if problems or left:
            raise NetnsError(f"teardown left {left}: {problems}")


@contextlib.contextmanager
def lone_loopback() -> Iterator[list[str]]:
    """A machine alone: a namespace of its own with only ``lo`` up, for processes that must
    hear nobody else's multicast DNS (the suite's other tables announce themselves on the
    shared loopback, and a bare ``p2p10 join`` that hears two open tables rightly refuses to
    pick one). Yields the command prefix that runs a process in it (``ip netns exec NAME``),
    or an empty prefix, the shared loopback, where namespaces cannot be made here. Whatever is
    left running in it afterwards is killed and the namespace deleted."""
    if namespaces_unavailable() is not None:
        yield []
        return
    name = f"p2p10-{os.getpid()}-{next(_COUNTER)}-lone"
    _ip("netns", "add", name)
    try:
        _ip("-n", name, "link", "set", "lo", "up")
        yield ["ip", "netns", "exec", name]
    finally:
        pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True,
                              timeout=SETUP_TIMEOUT).stdout.split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        _ip("netns", "del", name)


@pytest.fixture
def routed(tmp_path: Path) -> Iterator[Networks]:
    """:func:`routed_networks` for one test, its processes' output in ``tmp_path/processes``."""
    with routed_networks(tmp_path / "processes") as networks:
        yield networks


# -- the probes, run inside the namespaces as ``python -m tests.netns COMMAND ...`` -----------


def _tcp_serve(address: str, port: str) -> None:
    with socket.create_server((address, int(port))) as server:
        print("ready", flush=True)
        while True:
            conn, (peer, _port) = server.accept()
            with conn:
                conn.sendall(f"seen {peer}\n".encode())


def _tcp_ask(address: str, port: str, timeout: str = str(ASK_TIMEOUT)) -> int:
    try:
        with socket.create_connection((address, int(port)), timeout=float(timeout)) as conn:
            print(conn.makefile().readline().strip())
            return 0
    except OSError as err:
        import errno

        print(f"error {errno.errorcode.get(err.errno or 0, type(err).__name__)}")
        return 1


def _mcast_listen(interface: str, group: str, port: str, seconds: str, last: str) -> None:
    """Print each datagram heard, for ``seconds`` at most, or until half a second after the
    payload ``last`` is heard."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("", int(port)))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                    socket.inet_aton(group) + socket.inet_aton(interface))
    print("ready", flush=True)
    deadline = time.monotonic() + float(seconds)
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            data, (sender, _port) = sock.recvfrom(2048)
        except TimeoutError:
            break
        print(f"heard {data.decode(errors='replace')} {sender}", flush=True)
        if data.decode(errors="replace") == last:
            deadline = min(deadline, time.monotonic() + 0.5)


def _mcast_send(interface: str, group: str, port: str, payload: str) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)  # as far as it could ever go
    for _ in range(3):
        sock.sendto(payload.encode(), (group, int(port)))
        time.sleep(0.05)


def _split_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                other: asyncio.StreamWriter) -> int:
    """Bytes from ``reader`` to ``writer`` until the end (passed on as a half-close), or until
    either connection fails: then both are cut at once (``other`` is the reader's own
    writer), so that the other direction ends too. The bytes copied."""
    copied = 0
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
            copied += len(data)
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.transport.abort()
        other.transport.abort()
    return copied


async def _forward_connection(listen: str, target: tuple[str, int], reader: asyncio.StreamReader,
                              writer: asyncio.StreamWriter) -> None:
    peer_host, peer_port = writer.get_extra_info("peername")[:2]
    who = f"{listen} from {peer_host}:{peer_port}"
    print(who, flush=True)
    try:
        target_reader, target_writer = await asyncio.wait_for(asyncio.open_connection(*target),
                                                              ASK_TIMEOUT)
    except (OSError, TimeoutError) as err:
        print(f"{who}: {_address(target)} not reached ({err!r})", flush=True)
        writer.transport.abort()
        return
    up, down = await asyncio.gather(_copy(reader, target_writer, writer),
                                    _copy(target_reader, writer, target_writer))
    for each in (writer, target_writer):
        each.close()
    print(f"{who}: closed, {up} bytes up, {down} down", flush=True)


async def _forward(argv: list[str]) -> None:
    if not argv or len(argv) % 2:
        raise SystemExit("usage: forward LISTEN_ADDR:PORT TARGET_ADDR:PORT [...]")
    servers = []
    for listen_text, target_text in zip(argv[::2], argv[1::2], strict=True):
        # The connection's coroutine is run as a task of its own by asyncio.start_server.
        handle = functools.partial(_forward_connection, listen_text, _split_address(target_text))
        servers.append(await asyncio.start_server(handle, *_split_address(listen_text)))
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "tcp-serve":
        _tcp_serve(*args)
    elif command == "tcp-ask":
        return _tcp_ask(*args)
    elif command == "mcast-listen":
        _mcast_listen(*args)
    elif command == "mcast-send":
        _mcast_send(*args)
    elif command == "forward":
        asyncio.run(_forward(args))
    else:
        print(f"unknown probe {command}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
