/* The board: its cells and pieces, the moves of a piece, attacks, checks, legality and the
   mate in one, for the searches of mate.c, helpmate.c and player.c.

   kernel/cube/rules.py and kernel/cube/position.py are the modules to read first; this file answers
   the same questions (who attacks a cell, is a move legal, does it check, has the side to
   move a move) the same way, with two differences:
   - each side's pieces are an array beside the cells (with each cell's place in it), not a
     dict; which order they are kept in is the searches' own business (mate.c swaps the last
     piece into a captured one's place, player.c keeps Python's dict order);
   - "who attacks this cell" asks each piece of a side, through a table of lines and leaps
     by the difference of two cells, whether it could reach the cell on an empty board, and
     walks only that path; the difference is taken on a grid of width 2n - 1, since the padded
     array (width n + 4) is too narrow, from n = 6 on, for a difference to name one
     (dx, dy, dz); and whether a move is legal or checks is read off the lines, not by
     playing it: out of check only a pinned piece's move and a king's step can expose the
     king; in check, another piece must take the one checker or stand in its line; a check
     is direct (the piece's line or leap to the king, its old cell empty) or discovered (the
     piece stood alone between the king and a slider of its side, and leaves the line).

   The rules are the variant's (set_rules, from kernel/compiled.py's core_rules): which of the
   26 directions each slider slides along, and the pawns' pushes, captures and promotions, as
   kernel/cube/variants.py describes them; a pawn's capture is a leap in the same table as the
   knight's (a bit per side), and a promotion checks as what the pawn becomes. */

#include "core.h"

int set_size(Board *board, int size) {
    if (board->size == size) return 0;
    int width = size + 2 * WALL_THICKNESS;
    int area = width * width * width;
    uint8_t *cells = malloc((size_t)area);
    int32_t *index = malloc((size_t)area * sizeof(int32_t));
    int32_t *white = malloc((size_t)size * size * size * sizeof(int32_t));
    int32_t *black = malloc((size_t)size * size * size * sizeof(int32_t));
    int grid = 2 * size - 1, offset = grid * grid * grid;
    int32_t *compact = calloc((size_t)area, sizeof(int32_t));
    uint8_t *rays = calloc((size_t)2 * offset + 1, 1),
            *jumps = calloc((size_t)2 * offset + 1, 1), *promotes = calloc((size_t)area, 1);
    if (!cells || !index || !white || !black || !compact || !rays || !jumps || !promotes) {
        free(cells), free(index), free(white), free(black), free(compact), free(rays),
            free(jumps), free(promotes);
        PyErr_NoMemory();
        return -1;
    }
    free(board->cells), free(board->index), free(board->pieces[0]), free(board->pieces[1]);
    free(board->compact), free(board->rays), free(board->jumps), free(board->promotes);
    board->promotes = promotes;
    board->push_count = board->capture_count = board->promotion_count = 0;
    board->cells = cells, board->index = index, board->pieces[0] = white, board->pieces[1] = black;
    board->compact = compact, board->offset = offset, board->rays = rays,
    board->jumps = jumps;
    board->size = size, board->width = width, board->area = area, board->grid = grid;
    /* No pieces on the new cells: set_pieces must not take the old ones off them. */
    board->counts[0] = board->counts[1] = 0;
    memset(cells, WALL, (size_t)area);
    for (int z = 0; z < size; z++)
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                int cell = (x + WALL_THICKNESS) +
                           width * ((y + WALL_THICKNESS) + width * (z + WALL_THICKNESS));
                cells[cell] = EMPTY;
                compact[cell] = x + grid * (y + grid * z);
            }
    int count = 0, leaps = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy && !dz) continue;
                int step = dx + grid * (dy + grid * dz);
                for (int far = 1; far < size; far++)
                    rays[offset + far * step] = (uint8_t)(count + 1);
                board->steps[count] = dx + width * (dy + width * dz);
                board->step_xyz[count][0] = (int8_t)dx, board->step_xyz[count][1] = (int8_t)dy;
                board->step_xyz[count][2] = (int8_t)dz;
                board->step_axes[count++] = (uint8_t)((dx != 0) + (dy != 0) + (dz != 0));
            }
    for (int dz = -2; dz <= 2; dz++)
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                int a = abs(dx), b = abs(dy), c = abs(dz);
                int ones = (a == 1) + (b == 1) + (c == 1), twos = (a == 2) + (b == 2) + (c == 2);
                if (ones == 1 && twos == 1) {
                    board->leap_xyz[leaps][0] = (int8_t)dx, board->leap_xyz[leaps][1] = (int8_t)dy;
                    board->leap_xyz[leaps][2] = (int8_t)dz;
                    board->leaps[leaps++] = dx + width * (dy + width * dz);
                    /* A leap longer than the board joins no two of its cells, and its
                       difference could be another's. */
                    if (a < size && b < size && c < size)
                        jumps[offset + dx + grid * (dy + grid * dz)] = KNIGHT_JUMP;
                }
            }
    return set_rules(board, Py_None);
}

/* The cube's sliders: the queen on all 26 lines, the rook on the 6 of one axis, the bishop
   on the 8 triagonals. */
static void cube_slides(Board *board) {
    memset(board->slide_dirs, 0, sizeof board->slide_dirs);
    for (int d = 0; d < 26; d++) {
        int axes = board->step_axes[d];
        board->slide_dirs[QUEEN] |= 1u << d;
        if (axes == 1) board->slide_dirs[ROOK] |= 1u << d;
        if (axes == 3) board->slide_dirs[BISHOP] |= 1u << d;
    }
}

/* Read a sequence of (dx, dy, dz) steps, each part within `most`, into `xyz` (up to `room`). */
static int read_steps(PyObject *sequence, int most, int room, int (*xyz)[3], const char *what) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (!fast) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    if (count > room) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "rules: more than %d %s", room, what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        int *step = xyz[i];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iii", &step[0], &step[1],
                              &step[2])) {
            Py_DECREF(fast);
            return -1;
        }
        if (abs(step[0]) > most || abs(step[1]) > most || abs(step[2]) > most ||
            !(step[0] || step[1] || step[2])) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "rules: a step of %s out of range", what);
            return -1;
        }
    }
    Py_DECREF(fast);
    return (int)count;
}

int set_rules(Board *board, PyObject *rules) {
    /* Take the last rules' pawns off the tables first. */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < board->capture_count; i++)
            board->jumps[board->offset + board->capture_differences[s][i]] &= ~PAWN_JUMP(s);
    if (board->promotion_count) memset(board->promotes, 0, (size_t)board->area);
    board->push_count = board->capture_count = board->promotion_count = 0;
    board->pawn_axes = 0;
    cube_slides(board);
    board->known_kinds = 1u << KING | 1u << QUEEN | 1u << ROOK | 1u << BISHOP | 1u << KNIGHT;
    board->rules_salt = 0;
    if (rules == Py_None) return 0;
    /* (slides, pushes, captures, promotions, promotion_axes): see kernel/compiled.py. */
    PyObject *slides, *pushes, *captures, *promotions, *axes;
    if (!PyArg_ParseTuple(rules, "OOOOO", &slides, &pushes, &captures, &promotions, &axes))
        return -1;
    PyObject *fast = PySequence_Fast(slides, "slides");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != KINDS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "rules: slides of %d kinds expected", KINDS);
        return -1;
    }
    memset(board->slide_dirs, 0, sizeof board->slide_dirs);
    for (int kind = 0; kind < KINDS; kind++) {
        int steps[26][3];
        int count = read_steps(PySequence_Fast_GET_ITEM(fast, kind), 1, 26, steps, "slides");
        if (count < 0) return Py_DECREF(fast), -1;
        if (count && (kind == KING || kind == KNIGHT || kind == PAWN)) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "rules: kings, knights and pawns do not slide");
            return -1;
        }
        for (int i = 0; i < count; i++)
            board->slide_dirs[kind] |= 1u << direction_of(steps[i][0], steps[i][1], steps[i][2]);
    }
    Py_DECREF(fast);
    int xyz[MOST_PAWN_CAPTURES][3];
    int count = read_steps(pushes, 1, MOST_PUSHES, xyz, "pushes");
    if (count < 0) return -1;
    int width = board->width, grid = board->grid;
    for (int i = 0; i < count; i++) {
        int offset = xyz[i][0] + width * (xyz[i][1] + width * xyz[i][2]);
        board->pushes[0][i] = offset, board->pushes[1][i] = -offset;
    }
    board->push_count = count;
    count = read_steps(captures, 1, MOST_PAWN_CAPTURES, xyz, "captures");
    if (count < 0) return -1;
    for (int i = 0; i < count; i++) {
        int offset = xyz[i][0] + width * (xyz[i][1] + width * xyz[i][2]);
        int difference = xyz[i][0] + grid * (xyz[i][1] + grid * xyz[i][2]);
        board->pawn_captures[0][i] = offset, board->pawn_captures[1][i] = -offset;
        board->capture_differences[0][i] = difference;
        board->capture_differences[1][i] = -difference;
        board->jumps[board->offset + difference] |= PAWN_JUMP(0);
        board->jumps[board->offset - difference] |= PAWN_JUMP(1);
    }
    board->capture_count = count;
    fast = PySequence_Fast(promotions, "promotions");
    if (!fast) return -1;
    count = (int)PySequence_Fast_GET_SIZE(fast);
    int bad = count > MOST_PROMOTIONS;
    for (int i = 0; i < count && !bad; i++) {
        long kind = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        bad = kind <= KING || kind >= PAWN;
        board->promotions[i] = (uint8_t)kind;
    }
    Py_DECREF(fast);
    if (bad) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "rules: a pawn becomes a queen ... unicorn");
        return -1;
    }
    /* The promotion cells: the last cell along every axis the pawns advance on (white's the
       board's last, black's its first), as kernel/cube/variants.py's is_promotion_cell. */
    fast = PySequence_Fast(axes, "promotion_axes");
    if (!fast) return -1;
    int mask = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        long axis = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (axis < 0 || axis > 2) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rules: an axis is 0, 1 or 2");
            return -1;
        }
        mask |= 1 << axis;
    }
    Py_DECREF(fast);
    board->pawn_axes = mask;
    board->known_kinds = 1u << KING | 1u << KNIGHT | (board->push_count ? 1u << PAWN : 0);
    uint64_t salt = 0;
    for (int kind = 0; kind < KINDS; kind++) {
        if (board->slide_dirs[kind]) board->known_kinds |= 1u << kind;
        salt = mix(salt ^ board->slide_dirs[kind]);
    }
    for (int s = 0; s < board->push_count; s++) salt = mix(salt ^ (uint32_t)board->pushes[0][s]);
    for (int s = 0; s < board->capture_count; s++)
        salt = mix(salt ^ (uint32_t)board->capture_differences[0][s]);
    for (int s = 0; s < count; s++) salt = mix(salt ^ board->promotions[s]);
    board->rules_salt = mix(salt ^ (uint64_t)mask) | 1; /* never the cube's 0 */
    if (!mask || !board->push_count) return 0; /* no pawns, or none ever promotes */
    board->promotion_count = count;
    for (int cell = 0; cell < board->area; cell++) {
        if (board->cells[cell] == WALL) continue;
        int at[3], white = 1, black = 1;
        coordinates(board, cell, at);
        for (int axis = 0; axis < 3; axis++)
            if (mask >> axis & 1)
                white &= at[axis] == board->size - 1, black &= at[axis] == 0;
        board->promotes[cell] = (uint8_t)(white | black << 1);
    }
    return 0;
}

void free_board(Board *board) {
    free(board->cells), free(board->index), free(board->pieces[0]), free(board->pieces[1]);
    free(board->compact), free(board->rays), free(board->jumps), free(board->promotes);
    memset(board, 0, sizeof *board);
}

/* Set the pieces (cell << 4 | code each) on the board of the current size, `side` to move. */
int set_pieces(Board *board, PyObject *pieces, int side) {
    /* Take the last position's pieces off first: cheaper than clearing n^3 cells. */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < board->counts[s]; i++) board->cells[board->pieces[s][i]] = EMPTY;
    board->counts[0] = board->counts[1] = 0;
    board->kings[0] = board->kings[1] = -1;
    board->side = side;
    Py_ssize_t total = PyList_GET_SIZE(pieces);
    for (Py_ssize_t i = 0; i < total; i++) {
        long item = PyLong_AsLong(PyList_GET_ITEM(pieces, i));
        if (item == -1 && PyErr_Occurred()) return -1;
        long cell = item >> 4;
        int code = (int)(item & 15);
        int kind = KIND_OF(code), owner = SIDE_OF(code);
        if (cell < 0 || cell >= board->area || board->cells[cell] != EMPTY || kind < KING ||
            !(board->known_kinds >> kind & 1) || owner > 1) {
            PyErr_Format(PyExc_ValueError, "bad piece %ld (cell %ld, code %d)", item, cell, code);
            return -1;
        }
        board->cells[cell] = (uint8_t)code;
        board->index[cell] = board->counts[owner];
        board->pieces[owner][board->counts[owner]++] = (int32_t)cell;
        if (kind == KING) board->kings[owner] = (int)cell;
    }
    return 0;
}

/* Find where the pieces of `side` stand that attack `cell`, seeing through `lifted` as if it
   were empty; stop at `most` of them. Each piece is asked through the tables whether it
   could reach the cell on an empty board, and only that path is walked: a few pieces cost
   less than the 26 rays and 24 leaps around the cell. */
int attackers(const Board *board, int cell, int side, int lifted, int most, int *found) {
    const uint8_t *cells = board->cells;
    int count = 0;
    for (int i = 0; i < board->counts[side] && count < most; i++) {
        int point = board->pieces[side][i], kind = KIND_OF(cells[point]);
        int difference = between(board, point, cell);
        if (kind == KNIGHT || kind == PAWN) {
            if (!(board->jumps[difference] & (kind == PAWN ? PAWN_JUMP(side) : KNIGHT_JUMP)))
                continue;
        } else {
            int d = board->rays[difference] - 1;
            if (d < 0) continue;
            int step = board->steps[d];
            if (kind == KING) {
                if (point + step != cell) continue;
            } else {
                if (!slides_along(board, kind, d)) continue;
                int on = point + step;
                while (on != cell && (cells[on] == EMPTY || on == lifted)) on += step;
                if (on != cell) continue;
            }
        }
        if (found) found[count] = point;
        count++;
    }
    return count;
}

int reserve(MoveList *list, int count) {
    if (count <= list->capacity) return 0;
    int capacity = list->capacity ? list->capacity : 64;
    while (capacity < count) capacity *= 2;
    Move *moves = realloc(list->moves, (size_t)capacity * sizeof(Move));
    if (moves) list->moves = moves;
    int failed = !moves;
    if (list->numbers) {
        uint64_t *pns = realloc(list->pns, (size_t)capacity * sizeof(uint64_t));
        if (pns) list->pns = pns;
        uint64_t *dns = realloc(list->dns, (size_t)capacity * sizeof(uint64_t));
        if (dns) list->dns = dns;
        failed = failed || !pns || !dns;
    }
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    list->capacity = capacity;
    return 0;
}

void free_moves(MoveList *list) {
    free(list->moves), free(list->pns), free(list->dns);
    list->moves = NULL, list->pns = list->dns = NULL;
    list->count = list->capacity = 0;
}

/* Add the moves of the piece on `origin`, its own king's safety not asked (is_legal does). */
int piece_moves(Board *board, int origin, MoveList *list) {
    const uint8_t *cells = board->cells;
    uint8_t piece = cells[origin];
    int side = SIDE_OF(piece), kind = KIND_OF(piece);
    if (kind == PAWN) return pawn_moves(board, origin, list);
    if (kind == KNIGHT) {
        for (int l = 0; l < 24; l++) {
            int target = origin + board->leaps[l];
            uint8_t there = cells[target];
            if (there == EMPTY || (there != WALL && SIDE_OF(there) != side))
                if (add(list, origin, target, piece, there) < 0) return -1;
        }
        return 0;
    }
    uint32_t slides = kind == KING ? 0x3FFFFFFu : board->slide_dirs[kind];
    for (int d = 0; d < 26; d++) {
        if (!(slides >> d & 1)) continue;
        int step = board->steps[d], target = origin + step;
        for (;;) {
            uint8_t there = cells[target];
            if (there == EMPTY) {
                if (add(list, origin, target, piece, EMPTY) < 0) return -1;
                if (kind == KING) break;
                target += step;
                continue;
            }
            if (there != WALL && SIDE_OF(there) != side)
                if (add(list, origin, target, piece, there) < 0) return -1;
            break;
        }
    }
    return 0;
}

/* List the moves of the side to move, its own king's safety not asked. */
int pseudo_moves(Board *board, MoveList *list) {
    list->count = 0;
    for (int i = 0; i < board->counts[board->side]; i++)
        if (piece_moves(board, board->pieces[board->side][i], list) < 0) return -1;
    return 0;
}

void prepare(const Board *board, Context *context) {
    int side = board->side;
    const uint8_t *cells = board->cells;
    context->king = board->kings[side];
    context->enemy_king = board->kings[1 - side];
    context->in_check =
        context->king < 0 ? 0 : attackers(board, context->king, 1 - side, -1, 2, context->checkers);
    context->count = 0;
    if (context->enemy_king < 0) return;
    for (int d = 0; d < 26; d++) {
        int step = board->steps[d], point = context->enemy_king + step;
        while (cells[point] == EMPTY) point += step;
        uint8_t code = cells[point];
        if (code == WALL || SIDE_OF(code) != side) continue;
        int behind = point + step;
        while (cells[behind] == EMPTY) behind += step;
        uint8_t slider = cells[behind];
        if (slider != WALL && SIDE_OF(slider) == side && slides_along(board, KIND_OF(slider), d)) {
            context->discoverers[context->count] = point;
            context->directions[context->count++] = d;
        }
    }
}

/* Tell whether a move of the side to move checks the other king, without playing it. */
int gives_check(const Board *board, const Context *context, const Move *m) {
    int king = context->enemy_king;
    if (king < 0) return 0;
    int kind = KIND_OF(LANDED(m)); /* what the pawn has become checks */
    if (kind == KNIGHT || kind == PAWN) {
        int jump = kind == PAWN ? PAWN_JUMP(board->side) : KNIGHT_JUMP;
        if (board->jumps[between(board, m->target, king)] & jump) return 1;
    } else if (kind != KING) {
        int d = board->rays[between(board, m->target, king)] - 1;
        if (d >= 0 && slides_along(board, kind, d)) {
            int step = board->steps[d], point = m->target + step;
            while (point != king && (board->cells[point] == EMPTY || point == m->origin))
                point += step;
            if (point == king) return 1;
        }
    }
    for (int i = 0; i < context->count; i++)
        if (context->discoverers[i] == m->origin)
            /* Uncovered unless the piece stays on the line (it cannot pass the slider). */
            return board->rays[between(board, king, m->target)] - 1 != context->directions[i];
    return 0;
}

/* Tell whether a move of the side to move leaves its own king safe. */
int is_legal(const Board *board, const Context *context, const Move *m) {
    int side = board->side, king = context->king;
    if (king < 0) return 1;
    if (m->origin == king) return !attacked(board, m->target, 1 - side, king);
    const uint8_t *cells = board->cells;
    if (context->in_check) {
        /* In check, another piece must take the one checker or stand in its line. */
        int checker = context->checkers[0];
        if (context->in_check > 1) return 0;
        if (m->target != checker) {
            int kind = KIND_OF(cells[checker]);
            if (kind == KNIGHT || kind == KING || kind == PAWN) return 0;
            int d = board->rays[between(board, king, checker)] - 1;
            if (board->rays[between(board, king, m->target)] - 1 != d) return 0;
            if (abs(board->compact[m->target] - board->compact[king]) >=
                abs(board->compact[checker] - board->compact[king]))
                return 0;
        }
    }
    /* Otherwise only a pinned piece's move can expose the king. */
    int d = board->rays[between(board, king, m->origin)] - 1;
    if (d < 0) return 1;
    int step = board->steps[d], point = king + step;
    while (point != m->origin) {
        if (cells[point] != EMPTY) return 1;
        point += step;
    }
    point += step;
    while (cells[point] == EMPTY) point += step;
    uint8_t code = cells[point];
    if (code == WALL || SIDE_OF(code) == side || !slides_along(board, KIND_OF(code), d)) return 1;
    /* Pinned: it may only move along the line, up to taking the pinner. */
    return board->rays[between(board, king, m->target)] - 1 == d;
}

/* Tell whether the side to move has a legal move: the king's steps first, then the other
   pieces one at a time, each piece's moves generated only when the ones before had none. */
int has_legal_move(Board *board, MoveList *scratch) {
    Context context;
    prepare(board, &context);
    int side = board->side, king = context.king;
    if (king >= 0) {
        for (int d = 0; d < 26; d++) {
            int target = king + board->steps[d];
            if (king_step_lands(board, target, side) && !attacked(board, target, 1 - side, king))
                return 1;
        }
        if (context.in_check > 1) return 0; /* a double check: only the king can move */
    }
    for (int i = 0; i < board->counts[side]; i++) {
        int origin = board->pieces[side][i];
        if (origin == king) continue;
        scratch->count = 0;
        if (piece_moves(board, origin, scratch) < 0) return -1;
        for (int j = 0; j < scratch->count; j++)
            if (is_legal(board, &context, &scratch->moves[j])) return 1;
    }
    return 0;
}

/* Play a legal move, tell whether the other side has no legal move left (1), take it back;
   -1 on an error. */
int checkmates(Board *board, const Move *m, MoveList *scratch) {
    int place = board_play(board, m);
    int escapes = has_legal_move(board, scratch);
    board_undo(board, m, place);
    return escapes < 0 ? -1 : !escapes;
}

/* Tell whether the side to move mates in one (-1 on an error), as kernel/mates/mateinone.py's
   mates_in_one does: each piece's cells are walked and only those from which it could check
   the king (or any, for a piece whose leaving uncovers a check) are asked about: whether the
   move checks, is legal, and leaves the king no move. `asked` counts the checks played. */
int mate_in_one(Board *board, MoveList *scratch, int *asked) {
    int side = board->side, king = board->kings[1 - side];
    if (king < 0) return 0;
    Context context;
    prepare(board, &context);
    const uint8_t *cells = board->cells;
    int to_king[3], found = 0;
    coordinates(board, king, to_king);
    for (int i = 0; i < board->counts[side] && !found; i++) {
        int origin = board->pieces[side][i], from[3];
        uint8_t piece = cells[origin];
        int kind = KIND_OF(piece), uncovers = 0;
        for (int k = 0; k < context.count; k++) uncovers |= context.discoverers[k] == origin;
        if (kind == KING && !uncovers) continue; /* a king never checks by itself */
        if (kind == PAWN) {
            /* A pawn's few moves, each asked (a promotion checks as what it becomes). */
            Move moves[(MOST_PUSHES + MOST_PAWN_CAPTURES) * MOST_PROMOTIONS];
            MoveList list = {moves, NULL, NULL, 0, (int)(sizeof moves / sizeof *moves), 0};
            pawn_moves(board, origin, &list);
            for (int j = 0; j < list.count && !found; j++) {
                const Move *m = &moves[j];
                if (gives_check(board, &context, m) && is_legal(board, &context, m)) {
                    ++*asked;
                    if ((found = checkmates(board, m, scratch)) < 0) return -1;
                }
            }
            continue;
        }
        coordinates(board, origin, from);
        int dx = to_king[0] - from[0], dy = to_king[1] - from[1], dz = to_king[2] - from[2];
        int directions = kind == KNIGHT ? 24 : 26;
        uint32_t slides = kind == KING || kind == KNIGHT ? 0x3FFFFFFu : board->slide_dirs[kind];
        for (int d = 0; d < directions && !found; d++) {
            if (!(slides >> d & 1)) continue;
            const int8_t *xyz = kind == KNIGHT ? board->leap_xyz[d] : board->step_xyz[d];
            int step = kind == KNIGHT ? board->leaps[d] : board->steps[d];
            int slides = kind != KNIGHT && kind != KING;
            int target = origin, x = dx, y = dy, z = dz;
            for (;;) {
                target += step, x -= xyz[0], y -= xyz[1], z -= xyz[2];
                uint8_t there = cells[target];
                if (there == WALL || (there != EMPTY && SIDE_OF(there) == side)) break;
                if (uncovers || board_could_attack(board, piece, x, y, z)) {
                    Move m = {origin, target, piece, there, 0, EMPTY};
                    if (gives_check(board, &context, &m) && is_legal(board, &context, &m)) {
                        ++*asked;
                        if ((found = checkmates(board, &m, scratch)) < 0) return -1;
                        if (found) break;
                    }
                }
                if (!slides || there != EMPTY) break;
            }
        }
    }
    return found;
}

uint64_t board_key(const Board *board) {
    uint64_t key = (board->side ? BLACK_TO_MOVE_KEY : 0) ^ board->rules_salt;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < board->counts[s]; i++) {
            int cell = board->pieces[s][i];
            key ^= cell_key(cell, board->cells[cell]);
        }
    return key;
}

void spending_start(Spending *spending, PyObject *spend, long long allowance) {
    spending->spend = spend;
    spending->allowance = allowance > 0 ? (uint64_t)allowance : 0;
    spending->nodes = spending->unspent = 0;
}

int spending_finish(Spending *spending, int failed) {
    if (failed) spending->unspent = 0; /* an exception is set: nothing more is spent */
    failed = failed || spending_flush(spending) < 0;
    spending->spend = NULL;
    return failed;
}

int spending_flush(Spending *spending) {
    if (!spending->unspent) return 0;
    PyObject *result =
        PyObject_CallFunction(spending->spend, "K", (unsigned long long)spending->unspent);
    spending->unspent = 0;
    if (!result) return -1;
    Py_DECREF(result);
    return 0;
}
