"""Export a checkpoint's policy-value network: `python -m alphazero.export checkpoint=PATH`.

The ONNX model (opset 18, any batch size) has
  inputs   planes      float32 [batch, planes, height, width]  the game's `encode` of each position,
                                                                from the view of the side to move
           legal       bool    [batch, num_actions]             the legal moves (illegal ones get
                                                                probability 0)
  outputs  log_policy  float32 [batch, num_actions]             log-probabilities of the moves
           value       float32 [batch]                          the expected result for the side to
                                                                move, in [-1, 1]
and metadata (string key/value pairs): game, game_params (JSON), planes, height, width,
num_actions, model_kind, model_sizes (JSON), games_played, and doc (this layout in words).
Errors are one sentence and exit code 2. The model is the network cache's
(alphazero.nn.network_cache): exporting a checkpoint a second time imports no torch.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from alphazero.config.command import command_config, run_or_exit
from alphazero.config.command_line import check_command_line
from alphazero.config.errors import ConfigError
from alphazero.config.settings import validate_threads
from alphazero.config.threads import use_search_threads
from alphazero.nn.network_cache import cached_network
from games import make_game

DOC = ("inputs: planes float32 [batch, planes, height, width] (the game's encoding, side to move's "
       "view), legal bool [batch, num_actions]; outputs: log_policy float32 [batch, num_actions] "
       "(log-probabilities, illegal moves at probability 0), value float32 [batch] (expected "
       "result for the side to move, -1 to 1)")


def export_onnx(path: Path, out: Path) -> None:
    """Write the network of checkpoint file `path` to `out`, with its metadata."""
    import onnx  # 1.7 s to import: only writing a model needs it
    network = cached_network(path)
    info = network.info
    game = make_game(info["game"], **info["game_params"])
    proto = onnx.load_from_string(network.model)
    metadata = {"game": game.name, "game_params": json.dumps(game.params()),
                "planes": game.planes, "height": game.height, "width": game.width,
                "num_actions": game.num_actions, "model_kind": info["model_kind"],
                "model_sizes": json.dumps(info["model_sizes"]),
                "games_played": info.get("counters", {}).get("games", ""), "doc": DOC}
    del proto.metadata_props[:]
    for key, value in metadata.items():
        proto.metadata_props.add(key=key, value=str(value))
    proto.doc_string = DOC
    onnx.checker.check_model(proto)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.tmp")  # renamed when complete: never a torn file
    partial.write_bytes(proto.SerializeToString())
    os.replace(partial, out)


def main(argv: list[str]) -> None:
    check_command_line("export", "export", argv)

    def session():
        cfg = command_config("export", argv)
        validate_threads(cfg.threads)
        use_search_threads(cfg.threads)
        if not cfg.checkpoint:
            raise ConfigError("give the network to export: checkpoint=PATH.")
        path = Path(str(cfg.checkpoint))
        # never beside the checkpoint: a shipped network's folder is the checkout's or the package's
        out = Path(str(cfg.out)) if cfg.out else Path("runs") / "export" / f"{path.stem}.onnx"
        export_onnx(path, out)
        print(f"wrote {out}")

    run_or_exit(session)


if __name__ == "__main__":
    main(sys.argv[1:])
