"""Building an agent: the one place `play`, `engine`, `evaluate`, `curve`, the web board and
training's gate get theirs (`build`, from an AgentSpec; `build_agent` where a command starts
from its settings).

The advisors are the spec's, built for the game the network was trained on; a spec without
advisors is the network's search alone. Where the network runs is chosen from the spec's
device and precision (`network_runtime`), never from what the process happens to have
imported: on a CPU a checkpoint's network runs from the cache (alphazero.nn.network_cache:
its ONNX model through ONNX Runtime or OpenVINO, without torch; its int8 model quantized once
and cached beside it), on CUDA through torch.
"""
from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from alphazero.agent.agent import Agent, NetworkAgent, PureMCTSAgent
from alphazero.agent.spec import AgentSpec, agent_spec
from alphazero.config.devices import device_name, select_device
from alphazero.config.paths import CACHE_DIR, PRETRAINED_DIR
from alphazero.config.threads import chosen_threads, give_torch_threads
from alphazero.nn import checkpoint
from alphazero.nn.network_cache import cached_network, checkpoint_info
from alphazero.nn import openvino_session, precision as precisions
from alphazero.nn.onnx_session import OnnxInference
from alphazero.search.puct import SearchConfig
from games import game_advisors, make_game
from games.core.advice import Advisor

CACHED, TORCH = "cached ONNX model", "torch"  # where a checkpoint's network runs


def build(game, spec: AgentSpec, network=None) -> Agent:
    """The agent `spec` describes for `game`. `network`: an Inference already running (the
    network training holds, for its gate), instead of the spec's checkpoint."""
    if spec.kind == "pure":
        return PureMCTSAgent(game, spec.playouts, seed=spec.seed)
    if network is not None:
        return NetworkAgent(game, network, spec.simulations, SearchConfig.from_cfg(spec.search),
                            advisors_for(game, spec), seed=spec.seed)
    path = spec.checkpoint or default_checkpoint(game.name, game.params())
    if path is None:
        raise checkpoint.CheckpointError(
            f"no shipped network plays {board_words(game)} (the shipped ones play: "
            f"{shipped_boards(game.name)}); pass checkpoint=PATH or use player=pure.")
    if network_runtime(spec) == CACHED:
        cached = cached_network(path)
        return _agent(game, spec, cached.info, path,
                      lambda trained: cached_inference(cached.model, trained, spec.precision))
    return checkpoint_agent(game, spec, checkpoint.load(path), path)


def build_agent(game, cfg: DictConfig, kind: str | None = None, checkpoint_path=None,
                seed: int | None = None) -> Agent:
    """A command's agent from its settings (agent_spec): `kind` az or pure (default the
    tree's `player`), `checkpoint_path` (default the tree's `checkpoint`)."""
    return build(game, agent_spec(cfg, kind, checkpoint_path, seed))


def network_runtime(spec: AgentSpec) -> str:
    """Where a checkpoint's network runs: from the cache on a CPU, in a precision a runtime
    without torch offers (bfloat16 needs OpenVINO), unless the spec asks for torch; else
    through torch."""
    without_torch = spec.runtime == "auto" and (spec.precision in ("auto", "float32", "int8") or (
        spec.precision == "bfloat16" and openvino_session.available()))
    return CACHED if device_name(spec.device) == "cpu" and without_torch else TORCH


def advisors_for(game, spec: AgentSpec) -> list[Advisor]:
    """The spec's advisors for `game` (validated by alphazero.config.settings), in the order
    the settings name them."""
    kinds = game_advisors(game.name)
    return [kinds[name](game, setting) for name, setting in spec.advisors.items()]


def cached_inference(model: bytes, trained_game, precision: str) -> OnnxInference:
    """The cached ONNX model in `precision`, or on the path `auto` chooses (said once); an
    int8 model is quantized once and kept in the cache too."""
    threads = chosen_threads()
    if precision == "auto":
        choice = precisions.choose(model, trained_game, threads, CACHE_DIR)
        precisions.say_once(choice)
        path, from_batch = (choice.precision, choice.runtime), choice.from_batch
    else:
        path, from_batch = next(p for p in precisions.PATH_NAMES if p[0] == precision), 1
    calibration = (precisions.calibration(trained_game, CACHE_DIR / precisions.INT8_FOLDER)
                   if path == precisions.INT8 else None)
    return OnnxInference(precisions.cpu_runner(model, path, threads, from_batch, calibration),
                         *path)


def checkpoint_agent(game, spec: AgentSpec, saved: dict, path) -> NetworkAgent:
    """The agent of a loaded checkpoint, run through torch."""
    def inference(trained_game):
        from alphazero.nn.network import checkpoint_inference
        give_torch_threads()  # the count this process chose, if torch came after it
        return checkpoint_inference(saved, trained_game, select_device(spec.device),
                                    spec.precision, spec.runtime)
    return _agent(game, spec, saved, path, inference)


def _agent(game, spec: AgentSpec, saved: dict, path, inference) -> NetworkAgent:
    """`saved`: a checkpoint's entries (its tensors need not be there); `inference(trained
    game)`: its network ready for the search. It searches with the discount the network was
    trained with unless the spec gives one; a network trained on a range of boards searches
    `game`'s positions as the game it was trained on (same states, its own input size)."""
    checkpoint.check_plays(saved, game, path)
    trained_game = make_game(game.name, **saved["game_params"])
    return NetworkAgent(game, inference(trained_game), spec.simulations,
                        SearchConfig.from_cfg(spec.search, trained_discount(saved)),
                        advisors_for(trained_game, spec), seed=spec.seed, trained_game=trained_game)


def trained_discount(saved: dict) -> float:
    """The value discount a checkpoint was trained with (1 before the setting existed)."""
    return saved.get("config", {}).get("mcts", {}).get("discount") or 1.0


def default_checkpoint(game_name: str, game_params: dict) -> Path | None:
    """The shipped checkpoint whose network plays this game's boards: one trained on exactly
    these parameters first, else one whose board ranges include them."""
    game = make_game(game_name, **game_params)
    fitting = []
    for path in sorted(PRETRAINED_DIR.glob(f"{game_name}*.pt")):
        trained = checkpoint_info(path).get("game_params")
        if game.played_by(trained):
            fitting.append((trained != game.params(), path))
    return min(fitting)[1] if fitting else None


def shipped_boards(game_name: str) -> str:
    """What the shipped networks of a game play, for an error message."""
    boards = [trained_board_words(path) for path in sorted(PRETRAINED_DIR.glob(f"{game_name}*.pt"))]
    return "; ".join(boards) if boards else "none is shipped"


def board_words(game) -> str:
    """A game and its board as people say them: "Gomoku, 19×19"."""
    shown = game.presentation()
    return ", ".join(part for part in (shown.name, shown.board, shown.variant) if part)


def trained_board_words(path) -> str:
    """The game and board a checkpoint's network was trained on, as people say them."""
    info = checkpoint_info(path)
    return board_words(make_game(info["game"], **info["game_params"]))
