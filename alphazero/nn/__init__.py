"""The policy-value networks: models, devices, precision and batched inference (`network`),
ONNX Runtime on a CPU (`onnx_runtime`; without torch, `onnx_session`), checkpoints
(`checkpoint`), and their networks cached as ONNX models (`network_cache`)."""
