"""What every command shares at its start: the settings threads=N and device=..., a bad one
(or a setting the command lacks) refused in one sentence with exit code 2, a file that is no
checkpoint named as such, and a note on stderr when a first start compiles. Each command's
main() runs in the test process; train, evaluate and curve by their configs;
`--help` and a misspelled key run each command as a user types it."""
import subprocess
import sys

import pytest

from alphazero import engine, export, play
from alphazero.bench import speeds
from alphazero.config.command import command_config
from alphazero.config.command_line import check_command_line
from alphazero.config.errors import ConfigError
from alphazero.config.settings import validate
from alphazero.serve import __main__ as serve

from helpers import ROOT

COMMON = ["threads=1", "device=cpu"]
HYDRA_APPS = ("config", "evaluate", "curve")  # the trees of train, evaluate and curve
TINY_BENCH = ["search", "game=connect4_classic", "trees=1", "simulations=2", "seconds=0.01"]


def one_sentence(capsys, run, *words) -> str:
    """What `run()` says on stderr as it exits with code 2: one line holding `words`."""
    with pytest.raises(SystemExit) as stopped:
        run()
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1 and error.startswith("error: "), error
    assert all(word in error for word in words), error
    return error


def test_every_command_takes_threads_and_device():
    for name in (*HYDRA_APPS, "play", "engine"):
        validate(command_config(name, COMMON))
    serve.load_config(COMMON)
    assert command_config("export", ["threads=1"]).threads == 1
    assert speeds.main([*TINY_BENCH, *COMMON]) == 0


@pytest.mark.parametrize("setting", ["threads=0", "device=tpu"])
def test_a_bad_thread_count_or_device_is_one_sentence_and_exit_2(capsys, setting):
    key = setting.split("=")[0]
    for main in (play.main, engine.main, serve.main):
        one_sentence(capsys, lambda: main([setting]), key)
    one_sentence(capsys, lambda: export.main(["checkpoint=x.pt", setting]), key)
    assert speeds.main([*TINY_BENCH, setting]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(ConfigError, match=key):  # train's tree; evaluate's and curve's hold it
        validate(command_config("config", [setting]))


def test_a_setting_a_command_lacks_is_named(capsys):
    one_sentence(capsys, lambda: export.main(["device=cpu"]), "no setting 'device'")
    one_sentence(capsys, lambda: serve.main(["colour=red"]), "no setting 'colour'")


def test_a_file_that_is_no_checkpoint_is_one_sentence(capsys, tmp_path):
    notes = tmp_path / "notes.pt"
    notes.write_text("root:x:0:0:root:/root:/bin/bash\n")
    one_sentence(capsys, lambda: play.main(["game=connect4_classic", f"checkpoint={notes}"]),
                 f"{notes} is not a checkpoint")


def test_the_first_compilation_says_so_once_on_stderr(capsys):
    from numba import njit

    from games.core.compile_note import tell_first_compilation
    tell_first_compilation()
    tell_first_compilation()  # a second call adds no second listener

    def twice(x):
        return 2 * x
    assert njit(twice)(2) == 4 and njit(lambda x: x + 1)(2) == 3
    error = capsys.readouterr().err
    assert error.count("compiling Numba kernels") == 1 and "twice first" in error, error


COMMANDS = ("train", "evaluate", "curve", "play", "engine", "serve", "export", "bench")
# a misspelled key each command could be given, and the key it meant
TYPOS = {"serve": ("max_session=4", "max_sessions"), "export": ("trheads=1", "threads"),
         "bench": ("trheads=1", "threads")}


@pytest.mark.integration
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_helps_and_names_the_setting_a_typo_meant(command, capsys):
    """As a user types them: `--help` and `-h` are a short usage and exit 0; a misspelled key,
    or one added with `+`, is one sentence with the closest key and exit 2, never Hydra's
    advice to add it with `+`. The command itself runs `--help` and the typo; `-h` and the
    `+` are checked where every command checks them (check_command_line)."""
    def run(*words):
        return subprocess.run([sys.executable, "-m", f"alphazero.{command}", *words], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    helped = run("--help")
    assert helped.returncode == 0 and f"python -m alphazero.{command}" in helped.stdout, helped.stderr
    typo, meant = TYPOS.get(command, ("mcts.simulation=5", "mcts.simulations"))
    refused = run(*(["network", "game=connect4_classic"] if command == "bench" else []), typo)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count("\n") == 1 and f"did you mean '{meant}'?" in refused.stderr
    if command == "bench":
        return
    config = {"train": "config"}.get(command, command)
    for words, code in ((["-h"], 0), ([f"+{typo}"], 2)):
        with pytest.raises(SystemExit) as stopped:
            check_command_line(command, config, words)
        assert stopped.value.code == code
    said = capsys.readouterr()
    assert f"python -m alphazero.{command}" in said.out
    assert f"did you mean '{meant}'?" in said.err and "+" not in said.err
