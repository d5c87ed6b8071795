"""The tiers hold: a test that starts a process (a command, a script, a training run), itself
or through a helper of its module or a fixture that trains, is marked `integration`, so that
`make test-fast` (pytest -m "not integration") never starts one."""
import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
STARTS_A_PROCESS = {"subprocess", "Popen"}
TRAINING_FIXTURES = {"train", "tiny_run"}


def is_integration_mark(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "integration"


def unmarked_process_tests(source: str) -> list[str]:
    """The tests in `source` that start a process and carry no integration mark."""
    tree = ast.parse(source)
    if any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark"
                                                for t in node.targets)
           and is_integration_mark(node.value) for node in tree.body):
        return []
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    starting, grown = set(), True
    while grown:  # a helper that calls a helper that starts a process starts one too
        grown = False
        for name, function in functions.items():
            used = {getattr(node, "id", getattr(node, "attr", None)) for node in ast.walk(function)}
            arguments = {argument.arg for argument in function.args.args}
            if name not in starting and (used & (STARTS_A_PROCESS | starting)
                                         or arguments & (TRAINING_FIXTURES | starting)):
                starting.add(name)
                grown = True
    return [name for name in sorted(starting) if name.startswith("test_")
            and not any(is_integration_mark(d) for d in functions[name].decorator_list)]


def test_every_test_that_starts_a_process_is_marked_integration():
    unmarked = [f"{path.name}::{name}" for path in sorted(TESTS.glob("test_*.py"))
                for name in unmarked_process_tests(path.read_text())]
    assert not unmarked, "mark these @pytest.mark.integration:\n" + "\n".join(unmarked)


def test_the_check_follows_helpers_fixtures_and_marks():
    source = '''
import subprocess
import pytest

def run_command(*args):
    return subprocess.run(args)

def test_direct():
    subprocess.run(["true"])

def test_through_a_helper():
    run_command("true")

def test_a_training_fixture(tiny_run):
    pass

@pytest.mark.integration
def test_marked():
    run_command("true")

def test_in_process():
    assert 1 + 1 == 2
'''
    assert unmarked_process_tests(source) == ["test_a_training_fixture", "test_direct",
                                              "test_through_a_helper"]
    assert unmarked_process_tests("import pytest\npytestmark = pytest.mark.integration\n"
                                  + source) == []
