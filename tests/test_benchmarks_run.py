"""The benchmark scripts run and report every figure (their times are never asserted)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser import browser_missing

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_rules.py"
DEALING = ROOT / "benchmarks" / "bench_dealing.py"


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _figures(script: Path, *args: str, timeout: float | None = None) -> dict[str, Any]:
    """Run a benchmark script with ``args``; its JSON figures (the script must end well)."""
    done = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=timeout)
    assert done.returncode == 0, done.stderr
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def test_quick_benchmark_prints_every_figure_as_json() -> None:
    result = _figures(SCRIPT, "--quick", "--json", "--seed", "7")
    assert set(result) >= {"meta", "solver", "games", "replay", "solve_json"}

    solver = result["solver"]
    assert _positive(solver["solves_per_sec"])
    for name in ("random", "wild"):
        cls = solver[name]
        assert _positive(cls["solves_per_sec"])
        assert sorted(cls["phases"], key=int) == [str(p) for p in range(1, 11)]
        for figures in cls["phases"].values():
            for key in ("median_us", "p99_us", "max_us"):
                assert _positive(figures[key]), (name, key, figures)
            assert figures["median_us"] <= figures["p99_us"] <= figures["max_us"]
            assert 0 <= figures["makes_fraction"] <= 1

    for name in ("random", "greedy"):
        games = result["games"][name]
        for key in ("games", "games_per_sec", "median_game_s", "events_per_game_median",
                    "events_per_game_mean", "live_events_per_sec"):
            assert _positive(games[key]), (name, key, games)

    replay = result["replay"]
    for key in ("games", "events", "events_per_sec", "us_per_event"):
        assert _positive(replay[key]), (key, replay)
    assert replay["mismatches"] == 0

    solve_json = result["solve_json"]
    for key in ("lines", "lines_per_sec", "median_s", "empty_input_s"):
        assert _positive(solve_json[key]), (key, solve_json)
    assert solve_json["all_answered"] and solve_json["answered"] == solve_json["lines"]


def test_quick_dealing_benchmark_prints_every_figure_as_json() -> None:
    # Parts 2, 3 and 5 in this process; part 4 six p2p10 processes on 127.0.0.1 (hands=1, once each way).
    result = _figures(DEALING, "--quick", "--json", "--seed", "7", timeout=240)
    assert set(result) >= {"meta", "unit_costs", "proof", "setup", "draw", "processes", "audit"}
    modes = ("with_proofs", "without_proofs")

    for key in ("raw_mul_us", "raw_base_mul_us", "mul_us", "base_mul_us", "raw_add_us", "raw_valid_us",
                "ed25519_verify_us"):
        assert _positive(result["unit_costs"][key]), key

    proof = result["proof"]
    assert proof["cards"] == 108 and proof["proof_bytes"] == 128 * 108 + 160
    assert _positive(proof["generators_ms"])
    for case in ("shuffled", "initial"):
        for op in ("prove", "verify"):
            figures = proof[case][op]
            for key in ("runs", "median_ms", "min_ms", "max_ms", "mul", "base_mul", "all_adds", "floor_ms",
                        "ratio_to_floor", "floor_adds_ms", "ratio_to_floor_adds",
                        "ratio_to_floor_adds_checks"):
                assert _positive(figures[key]), (case, op, key, figures)
            assert figures["min_ms"] <= figures["median_ms"] <= figures["max_ms"]
            assert figures["floor_ms"] < figures["floor_adds_ms"]
        assert proof[case]["verify"]["validations"] == 2 * 108  # the proof's points, read from its bytes
        assert proof[case]["prove"]["validations"] == 0
    # The counts are the proof's arithmetic: the verifier skips the initial deck's identity A.
    assert proof["initial"]["verify"]["mul"] == proof["shuffled"]["verify"]["mul"] - 108
    assert proof["initial"]["prove"]["mul"] == proof["shuffled"]["prove"]["mul"]
    rederive = proof["rederive"]
    assert rederive["public"]["mul"] == 108 and rederive["secret"]["mul"] == 0
    for key in ("ratio", "proof_over_public"):
        assert _positive(rederive[key]), key
    for which in ("public", "secret"):
        assert _positive(rederive[which]["median_ms"]), which

    for part in ("setup", "draw"):
        figures_of = result[part]
        assert set(figures_of["with_proofs"]) == set(figures_of["without_proofs"]) == set(figures_of["ratio"])
        assert "2" in result[part]["ratio"]
        for name in modes:
            for peers, figures in result[part][name].items():
                for key in ("runs", "median_ms", "min_ms", "max_ms", "mul", "base_mul", "floor_ms",
                            "ratio_to_floor", "sig_verify", "entries", "log_bytes"):
                    assert _positive(figures[key]), (part, name, peers, key, figures)
                assert figures["min_ms"] <= figures["median_ms"] <= figures["max_ms"]
                assert figures["mults_vary"] is False
        for peers, ratio in result[part]["ratio"].items():
            assert _positive(ratio), (part, peers)
            with_, without = result[part]["with_proofs"][peers], result[part]["without_proofs"][peers]
            # The same seed, and a zero "proof" of the same length: the same entries, the same bytes.
            assert (with_["entries"], with_["log_bytes"]) == (without["entries"], without["log_bytes"])
            if part == "setup":
                assert with_["mul"] > without["mul"] and with_["base_mul"] > without["base_mul"]
            else:
                assert (with_["mul"], with_["base_mul"]) == (without["mul"], without["base_mul"])
    # The counts are the protocol's arithmetic, not a timing: more peers, more multiplications.
    sizes = sorted(result["setup"]["ratio"], key=int)
    for part in ("setup", "draw"):
        for name in modes:
            muls = [result[part][name][n]["mul"] for n in sizes]
            assert muls == sorted(muls) and len(set(muls)) == len(muls), (part, name, muls)

    processes = result["processes"]
    assert processes["peers"] == 6 and processes["games"] >= 1
    assert _positive(processes["startup_cpu_s"])
    for name in modes:
        figures = processes[name]
        for key in ("setup_wall_s", "setup_cpu_median_s", "setup_cpu_max_s", "cpu_median_s", "cpu_max_s",
                    "wall_s", "entries", "bytes"):
            assert _positive(figures[key]), (name, key, figures)
        assert figures["setup_cpu_median_s"] <= figures["setup_cpu_max_s"] < figures["cpu_max_s"]
        assert len(figures["setup_cpu_by_seat_s"]) == len(figures["cpu_by_seat_s"]) == 6
    for key, value in processes["ratio"].items():
        assert _positive(value), key

    audit = result["audit"]
    assert set(audit["games"]) == {"4", "6"}
    for players, game in audit["games"].items():
        assert _positive(game["ratio"]), players
        for name in modes:
            figures = game[name]
            assert figures["clean"] is True and figures["players"] == int(players)
            for key in ("play_s", "hands", "entries", "bytes", "bytes_per_entry", "median_s",
                        "entries_per_sec"):
                assert _positive(figures[key]), (players, name, key, figures)
            assert sum(k["entries"] for k in figures["kinds"].values()) == figures["entries"]
            assert sum(k["bytes"] for k in figures["kinds"].values()) < figures["bytes"]
        assert game["with_proofs"]["bytes"] == game["without_proofs"]["bytes"]
    command = audit["command"]
    assert command["same_size"] is True and command["runs"] >= 1
    assert _positive(command["ratio"]) and _positive(command["simulate_wall_s"])
    for name in modes:
        for key in ("wall_s", "wall_min_s", "wall_max_s", "cpu_s", "entries", "bytes"):
            assert _positive(command[name][key]), (name, key)


def test_quick_bots_benchmark_prints_every_figure_as_json() -> None:
    result = _figures(ROOT / "benchmarks" / "bench_bots.py", "--quick", "--json")
    for name in ("random", "greedy", "easy", "normal", "hard", "hard+8"):
        decisions = result["decisions"][name]
        assert decisions["decisions"] > 100
        for key in ("median_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms", "ratio_to_greedy"):
            assert _positive(decisions[key]), (name, key)
    for name in ("random", "greedy", "easy", "normal", "hard"):
        assert _positive(result["self_play"][name]["games_per_second"])


def test_a_short_ladder_prints_every_match_as_json() -> None:
    result = _figures(ROOT / "benchmarks" / "bench_ladder.py",
                      "--games", "2", "--jobs", "2", "--think-budget", "1", "--json")
    matches = {(m["upper"], m["lower"], m["players"]): m for m in result["matches"]}
    # Every level against every level below it, heads-up and at four seats; hard at six.
    assert len(matches) == 21 and ("hard", "normal", 6) in matches and ("easy", "random", 4) in matches
    assert result["meta"]["think_budget"] == 1
    for match in matches.values():
        assert match["games"] == 2 and 0 <= match["wins"] <= 2
        low, high = match["ci95"]
        assert 0 <= low <= match["win_rate"] <= high <= 1
        assert _positive(match["games_per_second"])


def test_quick_lan_benchmark_prints_every_figure_as_json() -> None:
    # Everything on 127.0.0.1: Zeroconf bound to loopback, the mesh, the p2p10 processes.
    result = _figures(ROOT / "benchmarks" / "bench_lan.py", "--quick", "--json", timeout=180)
    assert set(result) >= {"meta", "announce", "draw", "game"}
    assert result["meta"]["zeroconf"]["version"]

    announce = result["announce"]
    assert announce["runs"] == len(announce["samples"]) >= 1
    for key in ("listening_ms", "listed_ms", "announced_ms", "fresh_browser_ms"):
        figures = announce[key]
        assert all(_positive(figures[k]) for k in ("median", "min", "max")), (key, figures)
        assert figures["min"] <= figures["median"] <= figures["max"]

    assert "2" in result["draw"]
    for peers, figures in result["draw"].items():
        for key in ("draws", "ws_median_ms", "ws_min_ms", "ws_max_ms", "memory_median_ms", "memory_min_ms",
                    "memory_max_ms", "ratio", "pair_ratio", "tokens", "ws_setup_ms", "memory_setup_ms",
                    "entries"):
            assert _positive(figures[key]), (peers, key, figures)
        assert figures["ws_min_ms"] <= figures["ws_median_ms"] <= figures["ws_max_ms"]
        assert figures["memory_min_ms"] <= figures["memory_median_ms"] <= figures["memory_max_ms"]
        assert figures["tokens"] == int(peers) - 1
        # The same seed on both transports: the same keys, deal and moves, so the same log.
        assert figures["same_log"] is True

    game = result["game"]
    assert game["players"] == 4 and game["games"] == len(game["runs"]) >= 1
    assert game["identical"] is True and game["clean"] is True
    for key in ("wall_s", "listening_s", "dealing_s", "game_s", "tail_s", "entries", "bytes", "total_cpu_s"):
        assert _positive(game[key]), (key, game)
    for key in ("audit_cpu_s", "audit_ms_per_entry"):
        assert _positive(game[key]), (key, game)
    for key in ("beyond_startup_cpu_s", "cpu_ms_per_entry", "ratio_to_audit"):
        assert isinstance(game[key], int | float), (key, game)
    assert [p["seat"] for p in game["peers"]] == [1, 2, 3, 4]
    for peer in game["peers"]:
        for key in ("cpu_s", "user_s", "max_rss_mb"):
            assert _positive(peer[key]), (key, peer)
    assert _positive(game["startup"]["cpu_s"]) and _positive(game["startup"]["wall_s"])


def test_quick_watch_benchmark_prints_every_figure_as_json() -> None:
    # A 4-peer game of processes on 127.0.0.1, without spectators and with three (--quick
    # leaves out the run at nice 19).
    result = _figures(ROOT / "benchmarks" / "bench_watch.py", "--quick", "--json", timeout=300)
    assert result["players"] == 4 and result["spectators"] == 3 and result["games"] == 1
    assert set(result["kinds"]) == {"none", "same"}
    for kind, figures in result["kinds"].items():
        for key in ("game_s", "ms_per_entry"):
            assert all(_positive(figures[key][k]) for k in ("median", "min", "max")), (kind, key)
        assert _positive(figures["ratio_to_none"]) and figures["entries"] > 0
        # Three spectators checked every entry: their processes did work; none without them.
        assert (figures["spectators_cpu_s"] > 0) == (kind != "none"), (kind, figures)
    assert result["kinds"]["none"]["ratio_to_none"] == 1.0


def test_quick_resume_benchmark_prints_every_figure_as_json() -> None:
    # One 4-seat game quit at hand 3, resumed each way three times, and the start screen's lists.
    result = _figures(ROOT / "benchmarks" / "bench_resume.py", "--quick", "--json", timeout=120)
    [case] = result["cases"]
    assert (case["seats"], case["hand"], case["runs"]) == (4, 3, 3)
    for key in ("entries", "log_bytes", "checkpoint_bytes", "played_s"):
        assert _positive(case[key]), key
    ways = ("per_seat", "shared", "checkpoint")
    assert set(case["resume_s"]) == set(ways) == set(case["ratio_to_per_seat"])
    for way in ways:
        figures = case["resume_s"][way]
        assert 0 < figures["min"] <= figures["median"] <= figures["max"], (way, figures)
        assert _positive(case["ratio_to_per_seat"][way])
    assert case["ratio_to_per_seat"]["per_seat"] == 1.0
    if shutil.which("tmux"):  # the resume as a player waits for it, in a terminal
        shown = case["on_screen"]
        assert shown["runs"] == 3 and _positive(shown["ratio_table_to_story"])
        assert 0 < shown["table_s"]["median"] <= shown["story_s"]["median"]
        assert 0 < shown["key_s"]["min"] <= shown["key_s"]["median"] <= shown["key_s"]["max"]
    screen = result["start_screen"]
    assert screen["logs"] == 1 and screen["listed"] == 1 and _positive(screen["log_bytes"])
    assert set(screen["start_lists_s"]) == {"folded", "checkpoints", "index"}
    for figures in screen["start_lists_s"].values():
        assert 0 < figures["min"] <= figures["median"] <= figures["max"], figures
    assert screen["ratio_to_folded"]["folded"] == 1.0


@pytest.mark.slow
@pytest.mark.browser
def test_quick_web_benchmark_prints_every_figure_as_json() -> None:
    # One start of `p2p10 play --web` and a one-hand game in this process, in headless Chromium.
    why = browser_missing()
    if why is not None:
        pytest.skip(why)
    result = _figures(ROOT / "benchmarks" / "bench_web.py", "--quick", "--runs", "1", "--json", timeout=300)
    assert set(result) >= {"meta", "start", "delay", "bytes"}

    start = result["start"]
    assert start["runs"] == 1
    for key in ("address_s", "first_view_s", "hand_s", "version_s", "rules_s"):
        assert _positive(start["median_ms"][key]), (key, start)
    # The address is printed before the page can draw anything, and the hand is drawn last.
    medians = start["median_ms"]
    assert medians["address_s"] < medians["first_view_s"] <= medians["hand_s"]
    assert _positive(start["ratio_to_version"]) and _positive(start["ratio_to_rules"])

    delay = result["delay"]
    assert delay["hands"] == 1 and delay["bot_entries"] > 0 and delay["lines_timed"] > 0
    for key in ("delay_ms", "entry_to_sent_ms", "sent_to_received_ms", "received_to_drawn_ms",
                "snapshot_build_ms", "snapshot_bytes"):
        figures = delay[key]
        assert figures["n"] > 0 and _positive(figures["max"]), (key, figures)
        assert figures["min"] <= figures["median"] <= figures["p99"] <= figures["max"], (key, figures)
    # A line is drawn after the entry that told it was saved.
    assert delay["delay_ms"]["min"] > 0
    assert delay["snapshot_parts_mean_bytes"]["log"] > 0

    sizes = result["bytes"]
    # Nothing but the page and its socket, on 127.0.0.1 at the page's port.
    assert sizes["only_local"] is True and sizes["elsewhere"] == []
    assert sizes["requests"] == 2 and len(sizes["urls"]) == 2
    assert _positive(sizes["page_bytes"]) and sizes["ws_frames_received"] > 0
    assert sizes["ws_bytes_received"] >= sizes["ws_largest_frame"] > 0


def test_the_web_benchmark_names_a_request_that_left_the_machine() -> None:
    # The check of part 3 on a made-up performance log: the page, its socket, and a font
    # fetched from elsewhere, which must be named.
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "benchmarks" / "bench_web.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def event(method: str, **params: object) -> dict[str, str]:
        return {"message": json.dumps({"message": {"method": method, "params": params}})}

    log = [event("Network.requestWillBeSent", requestId="1", request={"url": "http://127.0.0.1:4000/"}),
           event("Network.loadingFinished", requestId="1", encodedDataLength=1000),
           event("Network.webSocketCreated", requestId="2", url="ws://127.0.0.1:4000/ws?t=x"),
           event("Network.webSocketFrameReceived", requestId="2", response={"payloadData": "abc"}),
           event("Network.webSocketFrameSent", requestId="2", response={"payloadData": "de"})]
    clean = bench.byte_figures(log, "4000", 1)
    assert clean["only_local"] is True and clean["page_bytes"] == 1000
    assert (clean["ws_bytes_received"], clean["ws_bytes_sent"]) == (3, 2)
    font = "https://fonts.example.com/a.woff2"
    log.append(event("Network.requestWillBeSent", requestId="3", request={"url": font}))
    log.append(event("Network.requestWillBeSent", requestId="4", request={"url": "http://127.0.0.1:4001/"}))
    dirty = bench.byte_figures(log, "4000", 1)
    assert dirty["only_local"] is False
    assert dirty["elsewhere"] == ["http://127.0.0.1:4001/", font]


def test_a_short_headroom_run_prints_every_match_as_json() -> None:
    result = _figures(ROOT / "benchmarks" / "bench_headroom.py", "--games", "2", "--jobs", "2",
                      "--seats", "2", "--seats", "4", "--json")
    matches = {(m["bot"], m["players"]): m for m in result["matches"]}
    # hard and its three cheats, at each table asked for.
    assert set(matches) == {(bot, seats) for bot in ("hard", "peek", "feeder", "seer") for seats in (2, 4)}
    for match in matches.values():
        assert match["games"] == 2 and 0 <= match["wins"] <= 2
        low, high = match["ci95"]
        assert 0 <= low <= match["win_rate"] <= high <= 1
        assert 0 <= match["made"] <= 1 and 0 <= match["made_by_normal"] <= 1
        assert match["parity"] == 1 / match["players"]
