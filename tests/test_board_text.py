"""Reading and marking the text boards games render: the cells found, the marks of the last
turn and the winning line in place, and a legend of every symbol."""
from games import make_game
from games.core.board_text import board_cells, flat_board, legend, marked_board


def test_a_horizontal_line_shares_one_pair_and_a_last_move_keeps_its_own():
    game = make_game("gomoku", size=7)
    state = game.play_moves(game.new_state(), ["A1", "A7", "B1", "B7", "C1", "C7", "D1", "G4", "E1"])
    text = game.render(state)
    board, cols = flat_board(text)
    assert cols == 7 and board.count("X") == 5 and len(board_cells(text)) == 7
    line = [42, 43, 44, 45, 46]  # the bottom row, A1 to E1
    marked = marked_board(text, last_turn=[27], line=line).splitlines()
    assert marked[6] == " 1[X X X X X]. ."
    assert marked[3] == " 4 . . . . . .(O)"  # G4 at the row's end
    assert marked[7:] == text.splitlines()[7:]  # the labels and the turn line unchanged


def test_the_legend_names_each_symbol_shown():
    game = make_game("connect4", rows=6, cols=7, forbidden=[5, 3])
    text = game.render(game.new_state())
    words = legend(game.presentation(), text, last_turn=True, line=False)
    assert words == ("Legend: X Red, O Yellow, ( ) the last move. #: This is the forbidden cell: "
                     "no disc may fill it (discs land on top of it).")
    standard = make_game("othello", rules="standard")
    assert legend(standard.presentation(), standard.render(standard.new_state()), False, True) == (
        "Legend: X Black, O White, [ ] the winning line.")
