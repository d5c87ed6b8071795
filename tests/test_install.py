"""`pip install .` (not editable): the commands run from any folder and find the config tree
and the shipped networks inside the installed package."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.integration  # builds and installs the package, runs its commands


def test_an_installed_copy_finds_its_config_and_networks_from_any_folder(tmp_path):
    source, wheels = tmp_path / "source", tmp_path / "wheels"
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    # a copy of what the package is built from: building writes a build/ folder beside it
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("alphazero", "games", "conf", "checkpoints/pretrained"):
        shutil.copytree(ROOT / folder, source / folder, ignore=skip)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, cwd=tmp_path)
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), *wheels.glob("*.whl")],
                   check=True, capture_output=True, cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": str(site)}

    where = subprocess.run(
        [sys.executable, "-c", "import alphazero.config.paths as p; print(p.CONF_DIR); print(p.PRETRAINED_DIR); "
         "import alphazero.nn.precision as q; print(q.POSITIONS_DIR)"],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True)
    conf, pretrained, positions = map(Path, where.stdout.split())
    assert conf.is_relative_to(site) and (conf / "game" / "connect6.yaml").is_file()
    assert pretrained.is_relative_to(site) and (pretrained / "connect4_classic.pt").is_file()
    # the low-precision check's positions travel with the package
    assert positions.is_relative_to(site) and (positions / "connect4_classic.npz").is_file()

    # play composes the config tree and loads the shipped network, then the human quits
    played = subprocess.run([sys.executable, "-m", "alphazero.play", "game=connect4_classic"],
                            cwd=elsewhere, env=env, input="quit\n", capture_output=True,
                            text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    assert "Game abandoned." in played.stdout
    assert not any(elsewhere.iterdir())  # play writes nothing
