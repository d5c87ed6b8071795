"""The network on a CPU through ONNX Runtime: the answers torch gives, on the weights the
torch module holds now, with subnormal floats flushed and the product's thread count."""
import threading

import numpy as np
import pytest
import torch

from alphazero.nn.network import Inference, build_model
from alphazero.nn.onnx_runtime import export_model
from alphazero.nn import openvino_session
from alphazero.nn.onnx_session import OnnxInference, OnnxRuntimeSession

from helpers import KINDS, SPEC

CPU = torch.device("cpu")


def both_runtimes(model):
    return (Inference(model, CPU, "float32", runtime="onnxruntime"),
            Inference(model, CPU, "float32", runtime="torch"))


def assert_same_answers(random_batch, onnx, torch_path, n=9, seed=0):
    planes, legal = random_batch(n, seed)
    for got, expected in zip(onnx(planes, legal), torch_path(planes, legal)):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_onnx_runtime_answers_as_torch_does_at_any_batch_size(kind, make_network, random_batch):
    onnx, torch_path = both_runtimes(make_network(kind))
    for seed, n in enumerate([1, 9, 128, 3]):
        assert_same_answers(random_batch, onnx, torch_path, n, seed)
    priors, _ = onnx(*random_batch(5))
    planes, legal = random_batch(5)
    assert np.all(priors[~legal] == 0)


def test_onnx_runtime_with_global_pooling_answers_as_torch_does(random_batch):
    torch.manual_seed(0)
    assert_same_answers(random_batch, *both_runtimes(build_model("cnn", SPEC, global_pool=True).eval()))


def test_onnx_runtime_follows_weights_changed_in_place(make_network, random_batch):
    """An optimizer step, load_state_dict and batch-norm statistics updated by a training
    forward pass all change the answers; a stale session would not."""
    model = make_network("resnet")
    onnx, torch_path = both_runtimes(model)
    planes, legal = random_batch(6)
    before = onnx(planes, legal)[0]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model.train()
    log_policy, value = model(torch.from_numpy(planes), torch.from_numpy(legal))
    (value.sum() - log_policy[:, 0].sum()).backward()  # also moves the batch-norm statistics
    optimizer.step()
    assert np.abs(onnx(planes, legal)[0] - before).max() > 1e-3
    assert_same_answers(random_batch, onnx, torch_path)
    torch.manual_seed(7)
    onnx.load_state_dict(build_model("resnet", SPEC, **KINDS["resnet"]).state_dict())
    assert_same_answers(random_batch, onnx, torch_path)


def test_onnx_runtime_flushes_subnormal_floats_to_zero(make_network, random_batch):
    model = make_network("cnn")
    with torch.no_grad():  # a value of 3e-39 before the tanh: subnormal in float32
        model.value_head[-2].weight.zero_()
        model.value_head[-2].bias.fill_(3e-39)
    _, values = Inference(model, CPU, "float32", runtime="onnxruntime")(*random_batch(2))
    assert np.all(values == 0.0)


def test_a_session_flushes_subnormals_in_every_thread_that_calls_it(make_network, random_batch):
    """ONNX Runtime flushes only the thread that makes a process's first session: the web
    board's worker threads computed with subnormals, a course Othello move 20x slower."""
    model = make_network("cnn")
    with torch.no_grad():
        model.value_head[-2].weight.zero_()
        model.value_head[-2].bias.fill_(3e-39)
    planes, legal = random_batch(2)
    network = OnnxInference(OnnxRuntimeSession(export_model(model, planes.shape[1:], legal.shape[1]), 1))
    seen = {}

    def in_a_fresh_thread():
        torch.set_flush_denormal(False)  # a thread that nothing has flushed
        subnormal = torch.tensor([3e-39])
        seen["before"] = (subnormal * 1.0).item()
        seen["values"] = network(planes, legal)[1]
        seen["after"] = (subnormal * 1.0).item()

    worker = threading.Thread(target=in_a_fresh_thread)
    worker.start()
    worker.join()
    assert seen["before"] != 0.0 and seen["after"] == 0.0 and np.all(seen["values"] == 0.0)


def test_onnx_runtime_takes_the_threads_torch_was_given(make_network, random_batch):
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        onnx = Inference(make_network("cnn"), CPU, "float32", runtime="onnxruntime")
        onnx(*random_batch(2))
        assert onnx.onnx.session.session.get_session_options().intra_op_num_threads == 2
    finally:
        torch.set_num_threads(threads)


def test_runtime_choices(make_network):
    model = make_network("cnn")
    assert Inference(model, CPU, "float32").runtime == "onnxruntime"
    # bfloat16 on a CPU: OpenVINO, which the project installs, else torch
    assert Inference(model, CPU, "bfloat16").runtime == (
        "openvino" if openvino_session.available() else "torch")
    assert Inference(model, CPU, "bfloat16", runtime="torch").runtime == "torch"
    assert Inference(model, CPU, "float32", runtime="torch").runtime == "torch"
    with pytest.raises(ValueError, match="runs float32 or int8 on the CPU only"):
        Inference(model, CPU, "bfloat16", runtime="onnxruntime")
    with pytest.raises(ValueError, match="runs bfloat16 on the CPU only"):
        Inference(model, CPU, "float32", runtime="openvino")
    with pytest.raises(ValueError, match="unknown runtime 'tvm'"):
        Inference(model, CPU, "float32", runtime="tvm")


@pytest.mark.integration  # a process of its own
@pytest.mark.skipif(not openvino_session.available(), reason="OpenVINO is not installed")
def test_openvino_is_imported_without_its_telemetry_which_forks():
    """OpenVINO's import sends usage telemetry from a forked process by default; a fork in a
    threaded process (the engine) can hang and outlive it. Imported through
    openvino_session, it forks nothing, in a fresh process, however long it lives."""
    import subprocess
    import sys
    script = ("import os, sys, time\n"
              "forks = []\n"
              "sys.addaudithook(lambda event, args: forks.append(event) if event == 'os.fork' else None)\n"
              "from alphazero.nn import openvino_session\n"
              "openvino_session._core()\n"
              "time.sleep(1.0)\n"  # telemetry sends from a thread pool, a moment later
              "print(len(forks))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
