"""Building an agent: `play`, `engine`, `evaluate`, `curve`, the web board and training's gate
all build theirs here, from a composed config.

The advisors are the ones `game.advisors` turns on, built for the game the network was
trained on; `search_alone=true` builds none, whatever the game's config says, so the agent is
the network's search alone. A process that has not imported torch and plays on a CPU takes
the network from the cache (alphazero.nn.network_cache) and never imports it; its path
(`selfplay.precision`, `auto` by default) is chosen from the cached ONNX model.
"""
from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from alphazero.agent.agent import NetworkAgent, PureMCTSAgent
from alphazero.config.devices import device_name, select_device
from alphazero.config.paths import PRETRAINED_DIR
from alphazero.config.threads import chosen_threads, give_torch_threads
from alphazero.nn import checkpoint
from alphazero.nn.network_cache import cached_network, checkpoint_info, use_cache
from alphazero.nn import openvino_session, precision as precisions
from alphazero.nn.onnx_session import OnnxInference
from alphazero.search.puct import SearchConfig
from games import game_advisors, make_game
from games.core.advice import Advisor


def advisors_for(game, cfg: DictConfig) -> list[Advisor]:
    """The advisors cfg turns on for `game` (validated by alphazero.config.settings), in the
    order the config names them; none with `search_alone`."""
    if cfg.get("search_alone", False):
        return []
    kinds = game_advisors(game.name)
    return [kinds[name](game, setting)
            for name, setting in (cfg.game.get("advisors") or {}).items() if setting]


def build_agent(game, cfg: DictConfig, kind: str, checkpoint_path=None, seed: int = 0):
    """`kind` 'az' (the network of a checkpoint, or the shipped one for this board) or 'pure'
    (pure MCTS at cfg.pure.playouts)."""
    if kind == "pure":
        return PureMCTSAgent(game, cfg.pure.playouts, seed=seed)
    path = checkpoint_path or default_checkpoint(game.name, game.params())
    if path is None:
        raise checkpoint.CheckpointError(
            f"no shipped network plays {game.name} with {checkpoint.describe_params(game.params())} "
            f"(the shipped {game.name} networks play: {shipped_boards(game.name)}); pass "
            "checkpoint=PATH or use player=pure.")
    return network_agent(game, cfg, path, seed)


def make_agent(game, cfg: DictConfig):
    """A command's configured agent (play, the engine): cfg.player az (cfg.checkpoint, or
    the shipped one) or pure."""
    return build_agent(game, cfg, cfg.player, cfg.checkpoint, seed=cfg.seed)


def network_agent(game, cfg: DictConfig, path, seed: int = 0) -> NetworkAgent:
    """The agent of the network in checkpoint file `path`, as `checkpoint_agent` builds it."""
    precision = cfg.selfplay.precision
    if use_cache() and device_name(cfg.device) == "cpu" and runs_cached(precision):
        network = cached_network(path)
        return _agent(game, cfg, network.info, path, seed,
                      lambda trained_game: cached_inference(network.model, trained_game, precision))
    return checkpoint_agent(game, cfg, checkpoint.load(path), path, seed)


def runs_cached(precision: str) -> bool:
    """Whether a cached network runs in `precision` without torch (bfloat16 needs OpenVINO)."""
    return precision in ("auto", "float32") or (precision == "bfloat16"
                                                 and openvino_session.available())


def cached_inference(model: bytes, trained_game, precision: str) -> OnnxInference:
    """The cached ONNX model in `precision`, or on the path `auto` chooses (said once)."""
    threads = chosen_threads()
    if precision != "auto":
        path = precisions.FLOAT32 if precision == "float32" else precisions.BFLOAT16
        return OnnxInference(precisions.cpu_runner(model, path, threads), *path)
    choice = precisions.choose(model, trained_game, threads)
    precisions.say_once(choice)
    path = (choice.precision, choice.runtime)
    return OnnxInference(precisions.cpu_runner(model, path, threads, choice.from_batch), *path)


def checkpoint_agent(game, cfg: DictConfig, saved: dict, path, seed: int = 0) -> NetworkAgent:
    """The agent of a loaded checkpoint, searched as cfg says (with the discount the network
    was trained with unless cfg gives one). A network trained on a range of boards searches
    `game`'s positions as the game it was trained on (same states, its own input size)."""
    def inference(trained_game):
        from alphazero.nn.network import checkpoint_inference
        give_torch_threads()  # the count this process chose, if torch came after it
        return checkpoint_inference(saved, trained_game, select_device(cfg.device),
                                    cfg.selfplay.precision)
    return _agent(game, cfg, saved, path, seed, inference)


def _agent(game, cfg: DictConfig, saved: dict, path, seed: int, inference) -> NetworkAgent:
    """`saved`: a checkpoint's entries (its tensors need not be there); `inference(trained
    game)`: its network ready for the search."""
    checkpoint.check_plays(saved, game, path)
    trained_game = make_game(game.name, **saved["game_params"])
    return NetworkAgent(game, inference(trained_game), cfg.mcts.simulations,
                        SearchConfig.from_cfg(cfg.mcts, trained_discount(saved)),
                        advisors_for(trained_game, cfg), seed=seed, trained_game=trained_game)


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
    boards = [checkpoint.describe_params(checkpoint_info(path).get("game_params"))
              for path in sorted(PRETRAINED_DIR.glob(f"{game_name}*.pt"))]
    return "; ".join(boards) if boards else "none is shipped"
