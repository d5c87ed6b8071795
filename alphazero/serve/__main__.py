"""`python -m alphazero.serve [port=N] [host=ADDRESS] [run=FOLDER]`: the web board on
http://127.0.0.1:8000/; with run=, also the kept self-play games of the training run whose
checkpoint folder that is.

Settings are conf/serve.yaml, overridden Hydra-style on the command line. A busy port or a
bad setting is one sentence and exit code 2.
"""
from __future__ import annotations

import errno
import ipaddress
import socket
import sys

import uvicorn
from omegaconf import DictConfig

from alphazero.config.command import command_config, run_or_exit
from alphazero.config.command_line import check_command_line
from alphazero.config.errors import ConfigError
from alphazero.config.settings import validate_serve
from alphazero.config.threads import use_search_threads
from alphazero.serve.app import create_app
from alphazero.serve.replays import check_run



def load_config(overrides: list[str]) -> DictConfig:
    cfg = command_config("serve", overrides)
    validate_serve(cfg)
    return cfg


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, or one sentence saying why there is none."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except socket.gaierror:
        raise ConfigError(f"host {host!r} is not an address of this machine.") from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} on {host} is busy (another program listens there); "
                              "choose another with port=N.") from None
        raise ConfigError(f"cannot listen on {host}:{port}: {error.strerror}.") from None
    return sock


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def main(argv: list[str]) -> None:
    check_command_line("serve", "serve", argv)

    def session():
        cfg = load_config(argv)
        use_search_threads(cfg.threads)  # auto: one a search; several requests share the cores
        run = check_run(str(cfg.run)) if cfg.run is not None else None
        sock = listen(cfg.host, cfg.port)
        app = create_app(cfg.max_sessions, cfg.max_simulations, run, device=cfg.device)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        if not is_loopback(host):
            print(f"warning: listening on {host}, not only this machine: anyone who reaches it "
                  "can play on this board and use its CPU.", flush=True)
        print(f"Serving the board at http://{shown}:{port}/ (Ctrl-C stops it).", flush=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])

    run_or_exit(session)


if __name__ == "__main__":
    main(sys.argv[1:])
