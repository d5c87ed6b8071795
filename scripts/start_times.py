"""How soon the agent answers after a command starts, and the web board's pace next to the
engine's.

    python scripts/start_times.py [games=connect6,othello,...] [repeats=3]

For each game (by default every conf/game/ name with a shipped network):
  engine  seconds from starting `python -m alphazero.engine game=G` to its answer to the first
          `genmove b`, first with nothing cached (empty Numba and network caches in a temporary
          folder), then again with both cached
  web     the web board's seconds to answer the agent's move on the empty board at the game's
          playing budget, next to the engine's `genmove b` there, measured in turns (medians
          of `repeats`, after one untimed move of each)
and once, for the first game, the start of play (to its first prompt, after the agent's
opening move), serve (to the line with its address) and export (to its end), each with
nothing cached, then cached. Prints one JSON line a measurement, with the load average.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from alphazero.bench.engines import EngineProcess
from alphazero.config.paths import PRETRAINED_DIR
from games.core.cli import parse_overrides

SHIPPED = ["connect6", "connect4", "connect4_classic", "othello", "gomoku", "gomoku8"]


def caches_in(folder: Path) -> dict:
    """The environment of a process whose Numba and network caches are in `folder`."""
    return {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"), "XDG_CACHE_HOME": str(folder)}


def first_and_cached(start, folder: Path) -> dict:
    """`start(env)`'s seconds with nothing cached, then with everything the first made."""
    env = caches_in(folder)
    return {"nothing_cached_s": round(start(env), 2), "cached_s": round(start(env), 2)}


def engine_start(game: str):
    def start(env) -> float:
        began = time.perf_counter()
        engine = EngineProcess([f"game={game}"], env)
        try:
            engine.ask("genmove b")
            return time.perf_counter() - began
        finally:
            engine.close()
    return start


def serve(env) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, "-m", "alphazero.serve", "port=0"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, server.stdout.readline().split()[4]


def serve_start(env) -> float:
    began = time.perf_counter()
    server, _ = serve(env)
    took = time.perf_counter() - began
    server.terminate()
    server.wait(30)
    return took


def play_start(game: str):
    def start(env) -> float:
        began = time.perf_counter()
        play = subprocess.Popen([sys.executable, "-m", "alphazero.play", f"game={game}",
                                 "human=second"], env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        shown = ""
        while not shown.endswith("your move> "):
            character = play.stdout.read(1)
            if not character:
                raise RuntimeError(f"play stopped after printing: {shown}")
            shown += character
        took = time.perf_counter() - began
        play.kill()
        play.wait(30)
        return took
    return start


def export_start(game: str, out: Path):
    def start(env) -> float:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "alphazero.export",
                        f"checkpoint={PRETRAINED_DIR / f'{game}.pt'}", f"out={out}"], env=env,
                       check=True, capture_output=True)
        return time.perf_counter() - began
    return start


def post(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(url + path, json.dumps(body).encode(),
                                     {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as answer:
        return json.load(answer)


def web_move(url: str, game: str) -> float:
    """Seconds the board takes for the agent's move on a new empty board."""
    view = post(url, "api/games", {"game": game, "colour": "both"})
    began = time.perf_counter()
    post(url, f"api/games/{view['id']}/agent", {})
    return time.perf_counter() - began


def engine_move(engine: EngineProcess) -> float:
    engine.ask("clear_board")
    began = time.perf_counter()
    engine.ask("genmove b")
    return time.perf_counter() - began


def web_next_to_engine(url: str, game: str, repeats: int) -> dict:
    engine = EngineProcess([f"game={game}"])
    try:
        web_move(url, game)  # warm-ups
        engine_move(engine)
        web, gtp = [], []
        for _ in range(repeats):  # in turns: a shared machine's drift hits both alike
            web.append(web_move(url, game))
            gtp.append(engine_move(engine))
    finally:
        engine.close()
    web_s, engine_s = statistics.median(web), statistics.median(gtp)
    return {"web_s": round(web_s, 3), "engine_s": round(engine_s, 3),
            "ratio": round(web_s / engine_s, 2)}


def report(what: str, **row) -> None:
    print(json.dumps({"what": what, **row, "load": round(os.getloadavg()[0], 2)}), flush=True)


def main(argv: list[str]) -> None:
    options = parse_overrides(argv)
    games = str(options.get("games", ",".join(SHIPPED))).split(",")
    repeats = int(options.get("repeats", 3))
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        for game in games:
            report("engine_first_genmove", game=game,
                   **first_and_cached(engine_start(game), scratch / game))
        server, url = serve(None)  # this user's caches, as the engine beside it has
        try:
            for game in games:
                report("web_agent_move_vs_engine", game=game, **web_next_to_engine(url, game, repeats))
        finally:
            server.terminate()
            server.wait(30)
        report("play_start", game=games[0], **first_and_cached(play_start(games[0]), scratch / "play"))
        report("serve_start", **first_and_cached(serve_start, scratch / "serve"))
        report("export", game=games[0],
               **first_and_cached(export_start(games[0], scratch / "out.onnx"), scratch / "export"))


if __name__ == "__main__":
    main(sys.argv[1:])
