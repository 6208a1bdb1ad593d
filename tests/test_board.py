"""The padded board, its converters, cell names, positions and the offset tables."""

from __future__ import annotations

import random

import pytest

from kernel.cube.board import Geometry, empty_cells
from kernel.cube.directions import (
    BISHOP_STEPS,
    FLAT_DIAGONAL_STEPS,
    KNIGHT_STEPS,
    QUEEN_STEPS,
    ROOK_STEPS,
    offsets_for,
)
from kernel.cube.position import BLACK, WHITE, Position
from kernel.cube.variants import CUBE
from kernel.text.notation import (
    EMPTY,
    WALL,
    get_cell_name_from_point,
    get_file_name_from_x,
    get_level_from_roman,
    get_point_from_cell_name,
    get_roman_from_level,
    get_x_from_file_name,
)

SMALL_SIZES = (2, 3, 4, 5)


def board_cells(geometry: Geometry) -> list[tuple[int, int, int]]:
    size = geometry.size
    return [(x, y, z) for z in range(size) for y in range(size) for x in range(size)]


def test_step_tables_have_the_sizes_and_shapes_of_the_rules() -> None:
    def shape(step: tuple[int, int, int]) -> tuple[int, ...]:
        return tuple(sorted(abs(value) for value in step))

    assert len(set(ROOK_STEPS)) == 6 and {shape(s) for s in ROOK_STEPS} == {(0, 0, 1)}
    assert len(set(BISHOP_STEPS)) == 8 and {shape(s) for s in BISHOP_STEPS} == {(1, 1, 1)}
    assert len(set(FLAT_DIAGONAL_STEPS)) == 12
    assert {shape(s) for s in FLAT_DIAGONAL_STEPS} == {(0, 1, 1)}
    assert len(set(QUEEN_STEPS)) == 26 and (0, 0, 0) not in QUEEN_STEPS
    assert len(set(KNIGHT_STEPS)) == 24 and {shape(s) for s in KNIGHT_STEPS} == {(0, 1, 2)}


@pytest.mark.parametrize("size", SMALL_SIZES)
def test_every_offset_from_every_cell_lands_in_the_array_and_is_the_true_step(size: int) -> None:
    geometry = Geometry(size)
    offsets = offsets_for(size, CUBE.rules)
    cells = empty_cells(size)
    tables = {
        "rook": (offsets.rook, ROOK_STEPS),
        "bishop": (offsets.bishop, BISHOP_STEPS),
        "queen": (offsets.queen, QUEEN_STEPS),
        "knight": (offsets.knight, KNIGHT_STEPS),
    }
    for x, y, z in board_cells(geometry):
        origin = geometry.get_point_from_cell(x, y, z)
        for name, (table, steps) in tables.items():
            assert len(table) == len(steps), name
            for offset, (dx, dy, dz) in zip(table, steps, strict=True):
                target = origin + offset
                assert 0 <= target < geometry.memory_area, (name, x, y, z, dx, dy, dz)
                inside = all(0 <= value < size for value in (x + dx, y + dy, z + dz))
                if inside:
                    assert cells[target] == EMPTY
                    assert geometry.get_cell_from_point(target) == (x + dx, y + dy, z + dz)
                else:
                    assert cells[target] == WALL, (name, x, y, z, dx, dy, dz)


@pytest.mark.parametrize("size", SMALL_SIZES)
def test_a_ray_from_any_cell_meets_the_wall_before_it_leaves_the_array(size: int) -> None:
    geometry = Geometry(size)
    cells = empty_cells(size)
    for x, y, z in board_cells(geometry):
        for step in offsets_for(size, CUBE.rules).queen:
            point = geometry.get_point_from_cell(x, y, z) + step
            walked = 0
            while cells[point] == EMPTY:
                point += step
                walked += 1
            assert cells[point] == WALL and walked < size


def test_empty_board_has_walls_two_cells_thick() -> None:
    geometry = Geometry(3)
    cells = empty_cells(3)
    assert geometry.memory_width == 7 and len(cells) == 7**3
    assert cells.count(EMPTY) == 27
    for point, cell in enumerate(cells):
        on_board = all(2 <= value <= 4 for value in geometry.get_xyz_from_point(point))
        assert (cell == EMPTY) == on_board


def test_point_converters_are_inverse_pairs() -> None:
    geometry = Geometry(4)
    width = geometry.memory_width
    for point in range(geometry.memory_area):
        x, y, z = geometry.get_xyz_from_point(point)
        assert point == x + width * y + width * width * z
        assert geometry.get_point_from_xyz(x, y, z) == point
    for cell in board_cells(geometry):
        point = geometry.get_point_from_cell(*cell)
        assert geometry.get_cell_from_point(point) == cell
        name = get_cell_name_from_point(geometry, point)
        assert get_point_from_cell_name(geometry, name) == point


def test_a1_of_level_one_is_memory_two_two_two() -> None:
    geometry = Geometry(3)
    assert get_point_from_cell_name(geometry, "a1(I)") == geometry.get_point_from_xyz(2, 2, 2)
    assert geometry.get_point_from_xyz(2, 2, 2) == 2 + 7 * 2 + 49 * 2


@pytest.mark.parametrize("bad", [(-1, 0, 0), (0, 7, 0), (0, 0, 7)])
def test_point_outside_the_padded_array_is_refused(bad: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match=r"outside 0 \.\.\. 6"):
        Geometry(3).get_point_from_xyz(*bad)


def test_file_names_are_spreadsheet_style_and_invert() -> None:
    assert [get_file_name_from_x(x) for x in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "a",
        "b",
        "z",
        "aa",
        "ab",
        "az",
        "ba",
        "zz",
        "aaa",
    ]
    for x in range(800):
        assert get_x_from_file_name(get_file_name_from_x(x)) == x


def test_roman_levels_invert_and_accept_decimals() -> None:
    assert [get_roman_from_level(level) for level in (1, 2, 3, 4, 9, 14, 40, 64)] == [
        "I",
        "II",
        "III",
        "IV",
        "IX",
        "XIV",
        "XL",
        "LXIV",
    ]
    for level in range(1, 300):
        assert get_level_from_roman(get_roman_from_level(level)) == level
    assert get_level_from_roman("12") == 12
    with pytest.raises(ValueError, match="IIII"):
        get_level_from_roman("IIII")


@pytest.mark.parametrize(
    "name, message",
    [("c2(IV)", "off the 3x3x3 board"), ("c2", "expected file"), ("d1(I)", "off the")],
)
def test_bad_cell_names_are_refused(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_point_from_cell_name(Geometry(3), name)


def test_cell_names_accept_decimal_levels() -> None:
    geometry = Geometry(3)
    assert get_point_from_cell_name(geometry, "c2(2)") == get_point_from_cell_name(
        geometry, "c2(II)"
    )


def test_board_from_rows_places_pieces_top_layer_and_back_row_first() -> None:
    board = Position.from_rows(2, ["#q", "##", "##", "K#"])

    def name(point: int) -> str:
        return get_cell_name_from_point(board.geometry, point)

    assert {name(point): piece for point, piece in board.pieces[WHITE].items()} == {"a1(I)": "K"}
    assert {name(point): piece for point, piece in board.pieces[BLACK].items()} == {"b2(II)": "q"}
    assert name(board.kings[WHITE]) == "a1(I)"
    assert board.kings[BLACK] == -1
    assert board.rows() == ["#q", "##", "##", "K#"]


@pytest.mark.parametrize("size", SMALL_SIZES)
def test_padded_cells_put_every_row_where_the_converters_say(size: int) -> None:
    rng = random.Random(size)
    rows = ["".join(rng.choice("#KQRBNkqrbn") for _ in range(size)) for _ in range(size**2)]
    board = Position.from_rows(size, rows)
    geometry = board.geometry
    found = {**board.pieces[WHITE], **board.pieces[BLACK]}
    assert found == {point: letter for point, letter in enumerate(board.cells) if letter.isalpha()}
    assert len(board.cells) == geometry.memory_area
    for index, row in enumerate(rows):
        # Rows come top layer first, back row first.
        z = size - 1 - index // size
        y = size - 1 - index % size
        for x, letter in enumerate(row):
            assert board.cells[geometry.get_point_from_cell(x, y, z)] == letter
    on_board = {geometry.get_point_from_cell(*cell) for cell in board_cells(geometry)}
    assert all(cell == WALL for point, cell in enumerate(board.cells) if point not in on_board)
    assert board.rows() == rows
