"""Time GTP engines per move, alone and side by side (`python -m alphazero.bench engines`).

Match tools and GUIs start two engines at once on the same machine. Each engine here plays
the same moves from the empty board (`genmove` for both colours, at the board's playing budget
unless `simulations` is given; the search is deterministic, so both runs see the same
positions), first alone, then `engines` of them at once, and the row reports each one's mean
seconds per move and the ratio side by side / alone. The first
move of each engine is a warm-up and not timed.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time

from alphazero.config.presets import load_presets, playing_budget
from games import ONGOING

COLOURS = ("b", "w")


class EngineError(ValueError):
    """An engine that refused a command or stopped; the message says what it printed."""


class EngineProcess:
    """One `python -m alphazero.engine` child, spoken to line by line."""

    def __init__(self, overrides: list[str], env: dict | None = None):
        self.errors = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: it never fills
        self.process = subprocess.Popen(
            [sys.executable, "-m", "alphazero.engine", *overrides], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, text=True)

    def ask(self, command: str) -> str:
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self._stopped(command)
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                self._stopped(command)
            if line == "\n":
                break
            lines.append(line.rstrip("\n"))
        answer = "\n".join(lines)
        if not answer.startswith("="):
            raise EngineError(f"the engine refused '{command}': {answer}")
        return answer[1:].strip()

    def _stopped(self, command: str):
        self.process.wait(timeout=30)
        self.errors.seek(0)
        raise EngineError(f"the engine stopped before answering '{command}': "
                          + " ".join(self.errors.read().split()))

    def timed_moves(self, game, moves: int) -> list[float]:
        """Seconds per genmove over `moves` moves after one warm-up, from a cleared board
        (followed here too, to ask for the side to move: a Connect6 turn is two stones)."""
        self.ask("clear_board")
        state = game.new_state()
        seconds = []
        for _ in range(moves + 1):
            if game.status(state) != ONGOING:
                break
            began = time.perf_counter()
            move = self.ask(f"genmove {COLOURS[game.to_move(state)]}")
            seconds.append(time.perf_counter() - began)
            game.play(state, game.parse_move(state, move))
        return seconds[1:]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.ask("quit")
        except EngineError:
            pass  # it stopped on its own; the error that matters was raised already
        finally:
            self.process.wait(timeout=30)
            self.errors.close()


def engine_overrides(game, options: dict) -> list[str]:
    """The engine's config for this game: the conf/game file of the game's name with the
    bench's game parameters, searching `simulations` or else the board's playing budget."""
    overrides = [f"game={game.name}"]
    overrides += [f"game.params.{key}={_hydra_value(value)}" for key, value in game.params().items()]
    overrides += [f"{key}={options[key]}" for key in ("threads", "device") if key in options]
    simulations = options.get("simulations") or playing_budget(game, load_presets())
    if simulations:
        overrides.append(f"mcts.simulations={int(simulations)}")
    return overrides


def _mean(seconds: list[float]) -> float:
    if not seconds:
        raise EngineError("the game ended before a move could be timed; ask for fewer moves.")
    return sum(seconds) / len(seconds)


def _hydra_value(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(str(v) for v in value) + "]"
    return str(value)


def bench_engines(game, options: dict) -> list[dict]:
    moves = int(options.get("moves", 6))
    count = int(options.get("engines", 2))
    overrides = engine_overrides(game, options)
    engines = [EngineProcess(overrides) for _ in range(count)]
    try:
        alone = [_mean(engine.timed_moves(game, moves)) for engine in engines]
        together: list[float] = [0.0] * count

        def run(i: int) -> None:
            together[i] = _mean(engines[i].timed_moves(game, moves))

        workers = [threading.Thread(target=run, args=(i,)) for i in range(count)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        for engine in engines:
            engine.close()
    return [{"game": game.name, "params": game.params(), "engine": i, "moves": moves,
             "alone_s_per_move": round(alone[i], 4), "side_by_side_s_per_move": round(together[i], 4),
             "ratio": round(together[i] / alone[i], 2)} for i in range(count)]
