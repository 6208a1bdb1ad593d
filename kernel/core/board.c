/* The board: its cells and pieces, the moves of a piece, attacks, checks, legality and the
   mate in one, for the searches of mate.c, helpmate.c and player.c.

   kernel/rules.py and kernel/position.py are the modules to read first; this file answers
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
     piece stood alone between the king and a slider of its side, and leaves the line). */

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
            *knight_leaps = calloc((size_t)2 * offset + 1, 1);
    if (!cells || !index || !white || !black || !compact || !rays || !knight_leaps) {
        free(cells), free(index), free(white), free(black), free(compact), free(rays),
            free(knight_leaps);
        PyErr_NoMemory();
        return -1;
    }
    free(board->cells), free(board->index), free(board->pieces[0]), free(board->pieces[1]);
    free(board->compact), free(board->rays), free(board->knight_leaps);
    board->cells = cells, board->index = index, board->pieces[0] = white, board->pieces[1] = black;
    board->compact = compact, board->offset = offset, board->rays = rays,
    board->knight_leaps = knight_leaps;
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
                        knight_leaps[offset + dx + grid * (dy + grid * dz)] = 1;
                }
            }
    return 0;
}

void free_board(Board *board) {
    free(board->cells), free(board->index), free(board->pieces[0]), free(board->pieces[1]);
    free(board->compact), free(board->rays), free(board->knight_leaps);
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
            kind > KNIGHT || owner > 1) {
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
        if (kind == KNIGHT) {
            if (!board->knight_leaps[difference]) continue;
        } else {
            int d = board->rays[difference] - 1;
            if (d < 0) continue;
            int step = board->steps[d];
            if (kind == KING) {
                if (point + step != cell) continue;
            } else {
                if (!slides_along(kind, board->step_axes[d])) continue;
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
    if (kind == KNIGHT) {
        for (int l = 0; l < 24; l++) {
            int target = origin + board->leaps[l];
            uint8_t there = cells[target];
            if (there == EMPTY || (there != WALL && SIDE_OF(there) != side))
                if (add(list, origin, target, piece, there) < 0) return -1;
        }
        return 0;
    }
    for (int d = 0; d < 26; d++) {
        int axes = board->step_axes[d];
        if ((kind == ROOK && axes != 1) || (kind == BISHOP && axes != 3)) continue;
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
        if (slider != WALL && SIDE_OF(slider) == side &&
            slides_along(KIND_OF(slider), board->step_axes[d])) {
            context->discoverers[context->count] = point;
            context->directions[context->count++] = d;
        }
    }
}

/* Tell whether a move of the side to move checks the other king, without playing it. */
int gives_check(const Board *board, const Context *context, const Move *m) {
    int king = context->enemy_king;
    if (king < 0) return 0;
    int kind = KIND_OF(m->piece);
    if (kind == KNIGHT) {
        if (board->knight_leaps[between(board, m->target, king)]) return 1;
    } else if (kind != KING) {
        int d = board->rays[between(board, m->target, king)] - 1;
        if (d >= 0 && slides_along(kind, board->step_axes[d])) {
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
            if (kind == KNIGHT || kind == KING) return 0;
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
    if (code == WALL || SIDE_OF(code) == side || !slides_along(KIND_OF(code), board->step_axes[d]))
        return 1;
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

/* Tell whether the side to move mates in one (-1 on an error), as kernel/mateinone.py's
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
        coordinates(board, origin, from);
        int dx = to_king[0] - from[0], dy = to_king[1] - from[1], dz = to_king[2] - from[2];
        int directions = kind == KNIGHT ? 24 : 26;
        for (int d = 0; d < directions && !found; d++) {
            if (kind == ROOK && board->step_axes[d] != 1) continue;
            if (kind == BISHOP && board->step_axes[d] != 3) continue;
            const int8_t *xyz = kind == KNIGHT ? board->leap_xyz[d] : board->step_xyz[d];
            int step = kind == KNIGHT ? board->leaps[d] : board->steps[d];
            int slides = kind != KNIGHT && kind != KING;
            int target = origin, x = dx, y = dy, z = dz;
            for (;;) {
                target += step, x -= xyz[0], y -= xyz[1], z -= xyz[2];
                uint8_t there = cells[target];
                if (there == WALL || (there != EMPTY && SIDE_OF(there) == side)) break;
                if (uncovers || could_attack(kind, x, y, z)) {
                    Move m = {origin, target, piece, there, 0};
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
    uint64_t key = board->side ? BLACK_TO_MOVE_KEY : 0;
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
