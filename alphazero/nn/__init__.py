"""The policy-value networks: models, devices, precision and batched inference (`network`),
ONNX Runtime on a CPU (`onnx_runtime`), and checkpoints (`checkpoint`)."""
