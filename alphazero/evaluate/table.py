"""A match's rows (match.result_row) as the text table that `evaluate` and `curve` print."""


def table_header() -> str:
    return (f"{'opponent':<22}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}  "
            f"{'win rate (95% CI)':<24}{'score':>6}{'as first':>10}{'as second':>11}")


def format_row(r: dict) -> str:
    first, second = ("-".join(map(str, r[k])) for k in ("as_first_player", "as_second_player"))
    rate = f"{r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
    return (f"{r['opponent']:<22}{r['games']:>6}{r['wins']:>6}{r['draws']:>6}{r['losses']:>7}"
            f"  {rate:<24}{r['score']:>6.3f}{first:>10}{second:>11}")


def format_table(rows: list[dict]) -> str:
    return "\n".join([table_header()] + [format_row(r) for r in rows])


FAULTS = {"illegal": "an illegal answer", "crash": "a crash", "timeout": "a time-out"}


def format_program_line(r: dict) -> str:
    """What a GTP program's row adds to the table: time per move, resignations, faults."""
    seconds = r["seconds_per_move"]
    faults = ", ".join(f"by {FAULTS[kind]}: {count}" for kind, count in r["forfeits"].items())
    return (f"{r['opponent']} ({r['program']}): {seconds['program']:.3f} s a move, the "
            f"network {seconds['network']:.3f} s; games it resigned: {r['resignations']}, "
            f"lost {faults}")
