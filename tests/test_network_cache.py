"""The network cache: a checkpoint's network prepared once, read back as it was written,
answering as torch's network does, and only the entries used last kept."""
import os

import numpy as np
import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import Inference, build_model
from alphazero.nn.network_cache import MOST_ENTRIES, cached_network, evict
from alphazero.nn.onnx_session import OnnxInference, OnnxRuntimeSession
from games import make_game


def test_a_network_is_prepared_once_and_answers_as_torch_does(tmp_path, capsys, tiny_checkpoint):
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    path = tiny_checkpoint(tmp_path / "latest.pt", game)
    first = cached_network(path, tmp_path / "cache")
    assert f"preparing networks for ONNX Runtime, {path} first" in capsys.readouterr().err
    again = cached_network(path, tmp_path / "cache")
    assert capsys.readouterr().err == "" and (again.model, again.info) == (first.model, first.info)
    assert again.info["game_params"] == game.params() and "model" not in again.info
    saved = checkpoint.load(path)
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (5, game.planes, game.height, game.width)).astype(np.float32)
    legal = rng.random((5, game.num_actions)) < 0.8
    for ours, torchs in zip(OnnxInference(OnnxRuntimeSession(again.model, 1))(planes, legal),
                            Inference(model, torch.device("cpu"), runtime="torch")(planes, legal)):
        np.testing.assert_allclose(ours, torchs, rtol=1e-4, atol=1e-6)


def test_the_entries_used_last_are_kept(tmp_path):
    for age in range(MOST_ENTRIES + 2):
        for suffix in (".json", ".onnx"):
            entry = tmp_path / f"{age:02d}{suffix}"
            entry.write_text("{}")
            os.utime(entry, (1e9 - age, 1e9 - age))  # 00 is the newest
    evict(tmp_path)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == 2 * MOST_ENTRIES and f"{MOST_ENTRIES - 1:02d}.onnx" in kept
    assert f"{MOST_ENTRIES:02d}.json" not in kept and f"{MOST_ENTRIES + 1:02d}.onnx" not in kept
