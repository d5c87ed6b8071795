"""ONNX export: the exported network gives the priors and values torch gives, at any batch size."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest

from alphazero.nn import checkpoint
from alphazero.export import export_onnx
import torch

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.nn.network import checkpoint_inference
from games import ONGOING, make_game

ROOT = Path(__file__).resolve().parents[1]


def random_positions(game, count: int, rng) -> np.ndarray:
    states = []
    while len(states) < count:
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 30))):
            if game.status(state) != ONGOING:
                break
            game.play(state, int(rng.choice(game.legal_list(state))))
        if game.status(state) == ONGOING:
            states.append(state)
    return np.stack(states)


def test_onnx_priors_and_values_match_torch(tmp_path):
    saved = checkpoint.load(PRETRAINED_DIR / "connect4.pt")  # boards drawn per game: padded planes
    out = tmp_path / "connect4.onnx"
    export_onnx(PRETRAINED_DIR / "connect4.pt", out)
    game = make_game(saved["game"], **saved["game_params"])
    model = onnx.load(out)
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["game"] == "connect4" and json.loads(meta["game_params"]) == game.params()
    assert int(meta["num_actions"]) == game.num_actions and int(meta["planes"]) == game.planes
    assert [i.name for i in model.graph.input] == ["planes", "legal"]
    assert [o.name for o in model.graph.output] == ["log_policy", "value"]
    network = checkpoint_inference(saved, game, torch.device("cpu"), "float32")
    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch in (1, 7):  # one exported model, any batch size
        states = random_positions(game, batch, rng)
        planes = np.stack([game.encode(s) for s in states])
        legal = np.stack([game.legal_mask(s) for s in states])
        log_policy, value = session.run(None, {"planes": planes, "legal": legal})
        priors, values = network(planes, legal)
        assert log_policy.shape == (batch, game.num_actions) and value.shape == (batch,)
        np.testing.assert_allclose(np.exp(log_policy), priors, atol=1e-5)
        np.testing.assert_allclose(value, values, atol=1e-5)
        assert np.all(np.exp(log_policy)[~legal] == 0)


@pytest.mark.integration
def test_a_bad_request_is_one_sentence(tmp_path):
    replay = tmp_path / "replay.pt"
    checkpoint.save_atomic({"samples": []}, replay)
    done = subprocess.run([sys.executable, "-m", "alphazero.export", f"checkpoint={replay}"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: {replay} holds no network (a replay buffer?)."
