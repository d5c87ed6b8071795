"""Every setting of every command, typed, with its default, its range and what it means: the
one source of defaults. conf/ (Hydra) composes on top of these structures: a game's recipe in
conf/game/ and a command line override them, and Hydra refuses a value of the wrong type.
`alphazero.config.settings.validate` checks the ranges written here, and docs/settings.md is
this module's table (`python -m alphazero.config.schema > docs/settings.md`; a test keeps it
current).

Each command's tree is one of the root structures at the bottom (TrainSettings, PlaySettings,
...), registered with Hydra under the name its conf/<command>.yaml lists first.
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


def setting(default, doc: str, *, low=None, high=None, choices=(), above=None):
    """A field with its default and the checks `validate` makes: at least `low`, at most
    `high`, above `above`, one of `choices` (None passes where the type is Optional)."""
    meta = {"doc": doc, "low": low, "high": high, "above": above, "choices": tuple(choices)}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def section(kind, doc: str):
    return field(default_factory=kind, metadata={"doc": doc})


PRECISIONS = ("auto", "float32", "bfloat16", "int8", "float16")


@dataclass
class GameSettings:
    name: str = setting("connect6", "the game's registered name (games.GAMES); `game=KEY` picks "
                        "a conf/game/ file that sets it")
    params: Dict[str, Any] = setting({}, "the game's rule parameters (board size, variant); "
                                     "empty: the game's own defaults")
    play_simulations: int = setting(800, "the agent's search budget per move in play, engine and "
                                    "evaluate; mcts.simulations=N overrides it", low=2)
    advisors: Dict[str, Any] = setting({}, "the agent's play-time help, advisor name -> setting "
                                       "(docs/design.md, \"The agent\"); search_alone=true: none")


@dataclass
class MctsSettings:
    simulations: int = setting(200, "search simulations per move (per stone in Connect6)", low=2)
    c_puct: float = setting(1.5, "exploration weight in Q + c_puct * P * sqrt(N_parent) / (1 + N)",
                            low=0)
    dirichlet_alpha: Optional[float] = setting(
        None, "the root noise's concentration in self-play; null: the game's own (about 10 / "
        "its typical number of legal moves)", above=0)
    dirichlet_epsilon: float = setting(0.25, "share of Dirichlet noise mixed into the root "
                                       "priors in self-play", low=0, high=1)
    arena_factor: float = setting(2.0, "node arena size in searches' worth; more keeps reused "
                                  "subtrees longer", low=1)
    discount: Optional[float] = setting(
        None, "below 1: a value shrinks by this per ply, in the search's backup and in "
        "self-play's targets, so quicker wins score higher; null: 1 in training, the "
        "network's own in play and evaluate", above=0, high=1)


@dataclass
class SelfplaySettings:
    workers: Any = setting("auto", "self-play processes; 0 plays in the trainer; auto: 0 on 1 "
                           "usable core, 2 on 2, else cores - 1")
    games_in_parallel: int = setting(128, "games per worker searched together (one network "
                                     "batch per search step)", low=1)
    temperature_moves: int = setting(12, "plies sampled with temperature 1 at a game's start; "
                                     "the most visited move after", low=0)
    full_search_share: float = setting(
        0.25, "playout cap randomisation: below 1, only this share of moves get the full "
        "mcts.simulations (with noise) and become training samples", above=0, high=1)
    fast_simulations: int = setting(32, "the other moves' simulations (no noise, not "
                                    "recorded)", low=2)
    opening_plies: int = setting(0, "a share of the games starts after this many uniformly "
                                 "random moves (not recorded)", low=0)
    opening_share: float = setting(0.0, "the share of games that start so", low=0, high=1)
    rollout_share: float = setting(
        0.0, "self-play's leaf rollouts: each leaf worth (1 - w) * the network's value + w * "
        "one random playout's outcome (play's are the leaf_rollouts advisor); for games whose "
        "playouts are cheap beside the network (OpenSpiel's Hex)", low=0, high=1)
    q_share: float = setting(0.5, "value target = (1 - q_share) * z + q_share * the root's "
                             "search value q; 0 is plain AlphaZero", low=0, high=1)
    precision: str = setting(
        "auto", "the network's precision in self-play and wherever it plays: auto (on a CPU "
        "the fastest path that agrees with float32 on the game's positions, "
        "alphazero/nn/precision.py; float32 on CUDA) | float32 | bfloat16 | int8 (CPU, its first "
        "convolution and heads in float32) | float16 (CUDA)",
        choices=PRECISIONS)


@dataclass
class ReplaySettings:
    capacity: int = setting(300_000, "samples kept (symmetry images included); the oldest go "
                            "first", low=1)


@dataclass
class TrainingSettings:
    max_games: Optional[int] = setting(2000, "stop after this many self-play games; null: no "
                                       "limit", low=1)
    max_minutes: Optional[float] = setting(None, "or before a round as long as the last would "
                                           "pass this many minutes of training in all, "
                                           "resumed parts included", low=0)
    positions_per_round: int = setting(1000, "new self-play positions collected between "
                                       "training rounds", low=1)
    sample_ratio: float = setting(16, "training samples drawn per new self-play position (sets "
                                  "the steps per round)", low=0)
    min_replay: int = setting(2000, "samples in the buffer before the first gradient step", low=0)
    batch_size: int = setting(256, "samples per gradient step", low=1)
    lr: float = setting(0.002, "the learning rate (Adam's or SGD's)", low=0)
    lr_schedule: Any = setting(None, "[[share, lr], ...]: from that share of the run on (its "
                               "games of train.max_games or minutes of train.max_minutes, "
                               "whichever is further), train at lr; null: train.lr throughout")
    l2: float = setting(1e-4, "c in the loss (z - v)^2 - pi^T log p + c * ||theta||^2", low=0)
    optimizer: str = setting("adam", "adam | sgd (momentum 0.9)", choices=("adam", "sgd"))
    precision: str = setting("auto", "training steps: auto (bfloat16 autocast on a CPU with "
                             "bfloat16 units, else float32) | float32 | bfloat16; weights and "
                             "optimizer stay float32", choices=("auto", "float32", "bfloat16"))
    ddp: Any = setting(False, "data-parallel training: true = every CUDA GPU, or a device list "
                       "such as [cuda:0,cuda:1] ([cpu,cpu]: the same path on the CPU)")
    checkpoint_minutes: float = setting(5, "write checkpoints/<run_name>/latest.pt this often "
                                        "(between rounds) and at the end", low=0)
    snapshot_games: Optional[int] = setting(None, "every this many games keep the network in "
                                            "checkpoints/<run_name>/snapshots/ for "
                                            "`alphazero.curve`; null: none", low=1)
    kept_games_mb: float = setting(4, "keep the latest self-play games as move lists in "
                                   "checkpoints/<run_name>/games/, at most this many MB; 0: "
                                   "none", low=0)
    resume: Any = setting(False, "true continues checkpoints/<run_name>/latest.pt; or a "
                          "checkpoint path (a network alone goes on with a fresh optimizer)")
    checkpoint_dir: str = setting("checkpoints", "where runs keep their checkpoints")


@dataclass
class EvalSettings:
    interval: int = setting(5, "training rounds between gating matches; 0: never gate", low=0)
    games: int = setting(10, "games per gating match (or per ladder level), colours alternating",
                         low=1)
    simulations: Optional[int] = setting(None, "the network's search budget when gated; null: "
                                         "mcts.simulations", low=2)
    gate: str = setting("pure", "pure: against pure MCTS, a clean sweep raises the level | "
                        "previous: against the best network", choices=("pure", "previous"))
    start_level: int = setting(1000, "pure-MCTS playouts per move of the first gating opponent",
                               low=1)
    level_step: int = setting(1000, "the level's rise after a clean sweep", low=0)
    threshold: float = setting(0.55, "gate=previous: the score (wins + draws / 2) that replaces "
                               "the best network", low=0, high=1)
    levels: List[int] = setting([1000, 2000, 4000, 8000], "pure-MCTS levels of the ladder "
                                "(evaluate, curve)")
    opening_plies: int = setting(0, "games start after this many random moves (one opening per "
                                 "colour-swapped pair)", low=0)


@dataclass
class TrainSettings:
    """`python -m alphazero.train` (conf/config.yaml), and the tree every command that plays a
    network builds on."""
    device: str = setting("auto", "auto (CUDA when present) | cpu | cuda | cuda:N")
    threads: Any = setting("auto", "torch threads: auto = 1 for searches, every core for a "
                           "training run that plays in its own process; or a number")
    seed: int = setting(0, "seeds self-play, sampling, initial weights and matches")
    search_alone: bool = setting(False, "true: the agent plays with its network's search alone, "
                                 "none of the advisors game.advisors turns on")
    run_name: Optional[str] = setting(None, "names checkpoints/<run_name>/; null: the game= "
                                      "choice")
    out_dir: Optional[str] = setting(None, "where train, evaluate and curve write their "
                                     "TensorBoard events and results; null: runs/<game>/"
                                     "[evaluate/ or curve/]<date and time>")
    game: GameSettings = section(GameSettings, "the game and its playing budget (conf/game/)")
    model: Dict[str, Any] = setting({}, "the network (conf/model/: model=cnn | resnet)")
    pool: Dict[str, Any] = setting({}, "where self-play workers run (conf/pool/: pool=local | "
                                   "ray)")
    mcts: MctsSettings = section(MctsSettings, "the search")
    selfplay: SelfplaySettings = section(SelfplaySettings, "self-play")
    replay: ReplaySettings = section(ReplaySettings, "the replay buffer")
    train: TrainingSettings = section(TrainingSettings, "training")
    eval: EvalSettings = section(EvalSettings, "the gate and the ladder")


@dataclass
class PureSettings:
    playouts: int = setting(1000, "pure MCTS playouts per move (per stone in Connect6): its "
                            "strength", low=1)


@dataclass
class PlaySettings(TrainSettings):
    """`python -m alphazero.play` and `alphazero.engine` (conf/play.yaml, engine.yaml)."""
    checkpoint: Optional[str] = setting(None, "a checkpoint to play; null: the shipped network "
                                        "for this board")
    player: str = setting("az", "az (a network's search) | pure (random-rollout MCTS)",
                          choices=("az", "pure"))
    human: str = setting("first", "the human's seat in the terminal: first | second",
                         choices=("first", "second"))
    pure: PureSettings = section(PureSettings, "player=pure's strength")


@dataclass
class GtpSettings:
    move_seconds: float = setting(60, "the longest wait for one answer in a game; past it the "
                                  "program loses that game", above=0)
    start_seconds: float = setting(30, "the longest wait for its first answer after each start",
                                   above=0)


@dataclass
class EvaluateSettings(TrainSettings):
    """`python -m alphazero.evaluate` (conf/evaluate.yaml)."""
    checkpoint: Optional[str] = setting(None, "the network to measure; null: the shipped one")
    opponent: Optional[str] = setting(None, "a second checkpoint for a head-to-head match "
                                      "instead of the ladder, gtp:COMMAND (docs/judges.md), or "
                                      "a player the game brings, NAME:STRENGTH (OpenSpiel's "
                                      "games: mcts:10000, its MCTSBot)")
    gtp: GtpSettings = section(GtpSettings, "opponent=gtp:COMMAND's time limits")
    solver_positions: int = setting(0, "classic Connect-4 or Othello: also score moves on this "
                                    "many solved positions", low=0)
    solver_kind: str = setting("random", "how those positions are reached: random | early | "
                               "selfplay | stages (Pons' six sets)",
                               choices=("random", "early", "selfplay", "stages"))
    solver_plies: List[int] = setting([8, 30], "[fewest, most] random plies before a random or "
                                      "selfplay position")


@dataclass
class CurveModeSettings:
    mode: str = setting("winrate", "winrate: every snapshot against each level | elo: a round "
                        "robin rated by Elo | stages: every snapshot's mistakes on Pons' six "
                        "Connect-4 sets", choices=("winrate", "elo", "stages"))
    games: int = setting(10, "elo: the games of each pair, an even number", low=2)
    opening_plies: int = setting(2, "elo: random moves of each opening", low=0)
    positions: int = setting(300, "stages: the positions of each set", low=1)


@dataclass
class CurveSettings(TrainSettings):
    """`python -m alphazero.curve` (conf/curve.yaml)."""
    run: Optional[str] = setting(None, "a training run's checkpoint folder; null: "
                                 "checkpoints/<run_name or game>")
    snapshots: Optional[str] = setting(None, "or a snapshot folder of its own")
    opponent: Optional[str] = setting(None, "gtp:COMMAND: every snapshot against that program")
    curve: CurveModeSettings = section(CurveModeSettings, "the curve's kind")
    gtp: GtpSettings = section(GtpSettings, "opponent=gtp:COMMAND's time limits")


@dataclass
class ServeSettings:
    """`python -m alphazero.serve` (conf/serve.yaml)."""
    host: str = setting("127.0.0.1", "loopback only; another address (0.0.0.0: every "
                        "interface) lets anyone who reaches this machine play")
    port: int = setting(8000, "0: any free port", low=0, high=65535)
    max_sessions: int = setting(64, "games kept in memory; past this the least recently used "
                                "idle one goes", low=1, high=100_000)
    max_simulations: int = setting(20_000, "the most simulations per move a request may ask "
                                   "for", low=1, high=1_000_000)
    threads: Any = setting("auto", "torch threads per search: auto = 1")
    device: str = setting("auto", "where the networks run: auto | cpu | cuda | cuda:N")
    run: Optional[str] = setting(None, "a training run's checkpoint folder whose kept games "
                                 "the page replays")


@dataclass
class ExportSettings:
    """`python -m alphazero.export` (conf/export.yaml)."""
    checkpoint: Optional[str] = setting(None, "the checkpoint to export")
    out: Optional[str] = setting(None, "the file to write; null: runs/export/<name>.onnx")
    threads: Any = setting("auto", "torch threads: auto = 1")


# Hydra's name for each root (the first entry of a conf/<command>.yaml's defaults)
ROOTS = {"train_settings": TrainSettings, "play_settings": PlaySettings,
         "evaluate_settings": EvaluateSettings, "curve_settings": CurveSettings,
         "serve_settings": ServeSettings, "export_settings": ExportSettings}


def register() -> None:
    """Give Hydra the roots, before it composes."""
    from hydra.core.config_store import ConfigStore
    store = ConfigStore.instance()
    for name, root in ROOTS.items():
        store.store(name=name, node=root)


def leaves(root, prefix: str = ""):
    """(dotted key, field) of every setting under a structure, sections opened."""
    for f in dataclasses.fields(root):
        kind = f.default_factory if f.default_factory is not dataclasses.MISSING else None
        if dataclasses.is_dataclass(kind):
            yield from leaves(kind, f"{prefix}{f.name}.")
        else:
            yield f"{prefix}{f.name}", f


def find(root, key: str):
    """The field of a dotted key, or None."""
    return dict(leaves(root)).get(key)


def choices(root, key: str) -> tuple[str, ...]:
    """The words a setting takes."""
    return find(root, key).metadata["choices"]


def type_words(key: str) -> str:
    """What a setting takes, in words ("a whole number"), from whichever root has it."""
    for root in ROOTS.values():
        f = find(root, key)
        if f is not None:
            kind = str(f.type).removeprefix("Optional[").removesuffix("]")
            return {"int": "a whole number", "float": "a number", "bool": "true or false",
                    "str": "a word"}.get(kind, "a value of its kind")
    return "a value of its kind"


def _default(f) -> str:
    value = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _range(meta) -> str:
    if meta["choices"]:
        return " \\| ".join(meta["choices"])
    parts = [f"≥ {meta['low']}" if meta["low"] is not None else "",
             f"> {meta['above']}" if meta["above"] is not None else "",
             f"≤ {meta['high']}" if meta["high"] is not None else ""]
    return ", ".join(p for p in parts if p)


def reference() -> str:
    """docs/settings.md: every command's settings, those of the training tree once."""
    lines = ["# Settings", "",
             "Every setting with its default, its range and its meaning, generated from",
             "`alphazero/config/schema.py` (`python -m alphazero.config.schema > docs/settings.md`).",
             "A game's recipe (`conf/game/<name>.yaml`) and the command line override them:",
             "`python -m alphazero.train game=othello train.max_games=500`.", ""]
    shared = {key for key, _ in leaves(TrainSettings)}
    for name, root in ROOTS.items():
        command = name.removesuffix("_settings")
        intro = " ".join(root.__doc__.split())
        if root is not TrainSettings and issubclass(root, TrainSettings):
            intro += (" It takes every setting of train (with mcts.simulations the game's playing "
                      "budget and selfplay.precision auto: conf/playing.yaml), and these:")
        lines += [f"## {command}", "", intro, "",
                  "| setting | default | range | meaning |", "|---|---|---|---|"]
        for key, f in leaves(root):
            if root is not TrainSettings and key in shared:
                continue
            meaning = f.metadata["doc"].replace("|", "\\|")
            lines.append(f"| `{key}` | `{_default(f)}` | {_range(f.metadata)} | {meaning} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(reference())
