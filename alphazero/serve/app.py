"""The web app: a page (alphazero/serve/web/) and plain JSON endpoints over game sessions.

Every API endpoint answers JSON; a refused request gets {"error": sentence} with a 4xx status
and changes nothing. Searches run in worker threads, one at a time per session (a second
request while one runs is refused with 409), so the event loop, the page and other sessions
stay responsive. Sessions live in memory; past `max_sessions` the least recently used idle
one is dropped.
"""
from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.agent.build import build, default_checkpoint, shipped_boards
from alphazero.agent.spec import agent_spec
from alphazero.config.presets import Preset, load_presets
from alphazero.serve import replays
from alphazero.serve.board_view import BoardViewError
from alphazero.serve.catalog import (CatalogError, TrainedFor, checkpoint_roots, display_path,
                                     list_checkpoints, resolve_checkpoint)
from alphazero.serve.game_form import form_fields
from alphazero.serve.request_body import (ApiError, BodyLimit, choice, error_response, is_whole,
                                          json_body)
from alphazero.serve.session import GameSession, Refusal, presentation_view
from games import GameError, game_class, make_game

WEB_DIR = Path(__file__).resolve().parent / "web"
ICON = WEB_DIR / "icon.svg"
MAX_SETUP_MOVES = 2000
SHIPPED, PURE = "shipped", "pure"  # the network choices besides a checkpoint path
FIRST_GAME = "connect4_classic"  # the page opens on a game people know, unless it remembers another
SEATS = {"first": {0}, "second": {1}, "both": {0, 1}}


class LiveSession:
    """A GameSession with its lock (one search or change at a time) and last use."""

    def __init__(self, session: GameSession):
        self.session = session
        self.lock = asyncio.Lock()
        self.used = time.monotonic()


class Server:
    def __init__(self, max_sessions: int, max_simulations: int, run: Path | None,
                 device: str = "auto"):
        self.presets: dict[str, Preset] = {key: preset for key, preset in
                                           load_presets([f"device={device}"]).items()
                                           # an optional package (open-spiel) installed
                                           if game_class(preset.game_name).unavailable() is None}
        self.run = run  # a training run's checkpoint folder, whose kept games the page replays
        base = next(iter(self.presets.values())).cfg
        self.roots = checkpoint_roots(base)
        self.max_sessions, self.max_simulations = max_sessions, max_simulations
        self.sessions: OrderedDict[str, LiveSession] = OrderedDict()
        self.players: OrderedDict[tuple, object] = OrderedDict()  # loaded networks, shared
        self.loading = threading.Lock()  # players are loaded in worker threads
        self.trained_for = TrainedFor()  # which game each checkpoint file plays
        # worked out once: the games and their form fields are part of the install
        self.offered = [self.offer(p) for p in self.presets.values()]

    @staticmethod
    def offer(preset: Preset) -> dict:
        game = make_game(preset.game_name, **preset.params)
        return {"key": preset.key, "game_name": preset.game_name, "params": game.params(),
                "simulations": preset.simulations, "fields": form_fields(preset.game_name, game.params()),
                **presentation_view(game.presentation())}

    # --- endpoints ---------------------------------------------------------------------------
    async def options(self, request: Request) -> JSONResponse:
        first = FIRST_GAME if FIRST_GAME in self.presets else next(iter(self.presets))
        return JSONResponse({"games": self.offered, "first": first, "max_simulations": self.max_simulations,
                             "run": display_path(self.run) if self.run else None})

    async def choices(self, request: Request) -> JSONResponse:
        """What the form shows for a game with these parameters: its title, rules and side
        names, and the networks that play its boards (the ones a new game accepts)."""
        body = await json_body(request)
        preset = self.preset_of(body.get("game"))
        params = game_params(body.get("params", preset.params))
        try:
            return JSONResponse(await asyncio.to_thread(self.game_choices, preset, params))
        except GameError as error:
            raise ApiError(400, str(error)) from None

    def game_choices(self, preset: Preset, params: dict) -> dict:
        game = make_game(preset.game_name, **params)
        shipped = default_checkpoint(game.name, game.params())
        shipped_path = display_path(shipped) if shipped else None
        files = [path for path in list_checkpoints(self.roots) if path != shipped_path]
        return {**presentation_view(game.presentation()), "shipped": shipped_path,
                "checkpoints": self.trained_for.fitting(game, files)}

    async def new_game(self, request: Request) -> JSONResponse:
        body = await json_body(request)
        preset = self.preset_of(body.get("game"))
        humans = choice(body.get("colour", "first"), SEATS,
                        "colour must be first (black), second (white) or both (analysis).")
        simulations = self.simulations(body.get("simulations", preset.simulations))
        params = game_params(body.get("params", preset.params))
        moves = setup_moves(body.get("moves", []))
        seed = body.get("seed")
        if seed is not None and not (is_whole(seed) and seed >= 0):
            raise ApiError(400, "seed must be a whole number of at least 0, or left out.")
        network = body.get("network", SHIPPED)
        try:  # in a thread: a game's first board compiles or loads its kernels, seconds
            session, view = await asyncio.to_thread(self.new_session, preset, params, network,
                                                    humans, simulations, moves, seed)
        except (GameError, CatalogError, checkpoint.CheckpointError, ConfigError, Refusal,
                BoardViewError) as error:
            raise ApiError(400, str(error)) from None
        return JSONResponse({"id": self.store(session), **view})

    def preset_of(self, game) -> Preset:
        return choice(game, self.presets, f"unknown game {str(game)[:40]!r}; choose one of: "
                                          f"{', '.join(self.presets)}.")

    async def show(self, request: Request) -> JSONResponse:
        # from a snapshot, in a thread: shown at once while the agent thinks, never torn
        return JSONResponse(await asyncio.to_thread(self.live(request).session.snapshot().view))

    async def move(self, request: Request) -> JSONResponse:
        body = await json_body(request)
        live = self.idle(request)
        player = body.get("player")
        if not is_whole(player):  # 1.0 or true would pass for white
            raise ApiError(400, "the player must be 0 (who moves first) or 1 (second).")
        refused(lambda: live.session.human_move(body.get("action"), player))
        return JSONResponse(await self.viewed(live, live.session.view))

    async def undo(self, request: Request) -> JSONResponse:
        live = self.idle(request)
        refused(live.session.undo)
        return JSONResponse(await self.viewed(live, live.session.view))

    async def agent_move(self, request: Request) -> JSONResponse:
        """The agent's move for the side to move: on its turn, or in analysis on request."""
        body = await json_body(request)
        live = self.idle(request)
        session = live.session
        simulations = self.simulations(body.get("simulations", session.simulations))
        if not (session.agent_to_move() or len(session.humans) == 2):
            raise ApiError(409, "it is your turn, not the agent's.")
        async with live.lock:
            state = session.state.copy()
            thought = await asyncio.to_thread(refused, lambda: session.think(simulations))
            session.play_thought(thought)  # changes happen on the event loop, views in threads
            answer = await asyncio.to_thread(
                lambda: {**session.view(), "thought": session.thought_view(thought, state)})
        return JSONResponse(answer)

    async def analyse(self, request: Request) -> JSONResponse:
        body = await json_body(request)
        live = self.idle(request)
        session = live.session
        simulations = self.simulations(body.get("simulations", session.simulations))
        async with live.lock:
            state = session.state.copy()
            thought = await asyncio.to_thread(refused, lambda: session.think(simulations))
            answer = await asyncio.to_thread(session.thought_view, thought, state)
        return JSONResponse(answer)

    async def position(self, request: Request) -> JSONResponse:
        session, ply = self.live(request).session.snapshot(), request.path_params["ply"]
        return JSONResponse(await asyncio.to_thread(refused, lambda: session.position(ply)))

    # --- a training run's games --------------------------------------------------------------
    async def run_games(self, request: Request) -> JSONResponse:
        run = self.kept_run()  # its files are read in a thread: a few MB of games
        return JSONResponse({"run": display_path(run),
                             "games": await asyncio.to_thread(replays.game_list, run)})

    async def open_run_game(self, request: Request) -> JSONResponse:
        run, index = self.kept_run(), request.path_params["index"]

        def opened() -> tuple[GameSession, dict]:
            session = refused(lambda: replays.open_game(run, index))
            return session, session.view()
        session, view = await asyncio.to_thread(opened)
        return JSONResponse({"id": self.store(session), **view})

    def kept_run(self) -> Path:
        if self.run is None:
            raise ApiError(404, "this board shows no training run; start it with run=FOLDER.")
        return self.run

    # --- sessions ----------------------------------------------------------------------------
    def store(self, session: GameSession) -> str:
        while len(self.sessions) >= self.max_sessions:
            idle = next((k for k, s in self.sessions.items() if not s.lock.locked()), None)
            if idle is None:
                raise ApiError(503, "every game session is busy; try again in a moment.")
            del self.sessions[idle]
        key = secrets.token_urlsafe(12)
        self.sessions[key] = LiveSession(session)
        return key

    def live(self, request: Request) -> LiveSession:
        key = request.path_params["key"]
        live = self.sessions.get(key)
        if live is None:
            raise ApiError(404, "no such game (the server may have restarted); start a new game.")
        self.sessions.move_to_end(key)
        live.used = time.monotonic()
        return live

    @staticmethod
    async def viewed(live: LiveSession, view) -> dict:
        """`view()`, a session's view, worked out in a worker thread (a 19x19 board's takes
        0.1 s), the session held meanwhile so that no change comes in between (changes
        themselves happen on the event loop)."""
        async with live.lock:
            return await asyncio.to_thread(view)

    def idle(self, request: Request) -> LiveSession:
        live = self.live(request)
        if live.lock.locked():
            raise ApiError(409, "the agent is still thinking about this game; wait for it.")
        return live

    def simulations(self, value) -> int:
        # at least 2: a search's first simulation only expands the root (alphazero.config.settings)
        if not (is_whole(value) and 2 <= value <= self.max_simulations):
            raise ApiError(400, f"simulations must be a whole number from 2 to {self.max_simulations}.")
        return value

    # --- agents ------------------------------------------------------------------------------
    def new_session(self, preset: Preset, params: dict, network, humans: set[int],
                    simulations: int, moves: list[str], seed: int | None) -> tuple[GameSession, dict]:
        """A new game set up with `moves`, and its view."""
        game = make_game(preset.game_name, **params)
        agent, label = self.agent_for(preset, game, network)
        state = game.new_state(np.random.default_rng(seed))
        session = GameSession(preset.key, game, state, agent, label, humans, simulations)
        session.setup(moves)
        return session, session.view()

    def agent_for(self, preset: Preset, game, network) -> tuple[object, str]:
        """The agent of a new session and its name on the page: pure MCTS, the shipped
        network, or a checkpoint file."""
        if network == PURE:
            return build(game, agent_spec(preset.cfg, "pure")), "pure MCTS"
        if network == SHIPPED:
            path = default_checkpoint(game.name, game.params())
            if path is None:
                raise CatalogError(f"no network is shipped for {game.name} with "
                                   f"{checkpoint.describe_params(game.params())} (the shipped ones play: "
                                   f"{shipped_boards(game.name)}); choose a checkpoint file or "
                                   "pure MCTS.")
        else:
            path = resolve_checkpoint(network, self.roots)
        return self.player(preset, game, path), display_path(path)

    def player(self, preset: Preset, game, path: Path):
        key = (str(path), path.stat().st_mtime_ns, game.name, json.dumps(game.params(), sort_keys=True))
        with self.loading:
            if key not in self.players:
                self.players[key] = build(game, agent_spec(preset.cfg, "az", path))
                if len(self.players) > 8:
                    self.players.popitem(last=False)
            self.players.move_to_end(key)
            return self.players[key]


def refused(action):
    """Run a session change; its Refusal becomes a 400 answer."""
    try:
        return action()
    except Refusal as error:
        raise ApiError(400, str(error)) from None


def game_params(value) -> dict:
    if not isinstance(value, dict) or len(json.dumps(value)) > 1000:
        raise ApiError(400, "params must be an object of the game's parameters.")
    return value


def setup_moves(value) -> list[str]:
    """A move list from the page: a list of moves, or one string split at spaces and commas."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or not all(isinstance(m, (str, int)) and not isinstance(m, bool)
                                              for m in value):
        raise ApiError(400, "moves must be a list of moves in the game's notation, such as F5 or 4.")
    if len(value) > MAX_SETUP_MOVES:
        raise ApiError(400, f"at most {MAX_SETUP_MOVES} set-up moves.")
    return [str(m) for m in value]


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    return error_response(error)


async def http_error(request: Request, error: HTTPException) -> JSONResponse:
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


async def internal_error(request: Request, error: Exception) -> JSONResponse:
    # A bug must not take the server down: the page gets a sentence, the server goes on.
    return JSONResponse({"error": f"internal error: {type(error).__name__}: {error}"}, status_code=500)


def create_app(max_sessions: int = 64, max_simulations: int = 20000,
               run: Path | None = None, device: str = "auto") -> Starlette:
    server = Server(max_sessions, max_simulations, run, device)
    game = "/api/games/{key:str}"
    routes = [
        Route("/", lambda request: FileResponse(WEB_DIR / "index.html")),
        Route("/favicon.ico", lambda request: FileResponse(ICON, media_type="image/svg+xml")),
        Mount("/static", StaticFiles(directory=WEB_DIR), name="static"),
        Route("/api/options", server.options),
        Route("/api/choices", server.choices, methods=["POST"]),
        Route("/api/games", server.new_game, methods=["POST"]),
        Route(game, server.show),
        Route(game + "/move", server.move, methods=["POST"]),
        Route(game + "/undo", server.undo, methods=["POST"]),
        Route(game + "/agent", server.agent_move, methods=["POST"]),
        Route(game + "/analyse", server.analyse, methods=["POST"]),
        Route(game + "/positions/{ply:int}", server.position),
        Route("/api/run/games", server.run_games),
        Route("/api/run/games/{index:int}", server.open_run_game, methods=["POST"]),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(BodyLimit)], exception_handlers={
        ApiError: api_error, HTTPException: http_error, Exception: internal_error})
    app.state.server = server
    return app
