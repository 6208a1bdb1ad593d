/* The helpmate of kernel/mates/helpmate.py, compiled: every line of 2N plies after which the side
   to move is checkmated, both sides cooperating.

   kernel/mates/helpmate.py is the search to read first; HelpmateSearch hands its question here
   when the core was built (and `[search] compiled` is not false), and tests/test_helpcore.py
   holds the two to each other, and both to tests/stipulations.py's brute force.

   The same as in Python: the search is depth first over the one position, both sides OR;
   each move generated is a legal one, so a position in the middle of a line whose side to
   move has none (mate or stalemate) ends that line; the last move is a check after which the
   other side has no move, asked first of kernel/mates/mateinone.py's walk (board.c's mate_in_one),
   which looks only at the cells a piece could check from, and the mating moves listed only
   where it found one; a count past the limit stops the search at once with the count so far
   (a position's lines all extend to distinct solutions from the start).

   Different, because C can afford it or needs it:
   - the table keeps, per position and plies left, how many lines finish from there, not the
     lines: the lines are then written by a second walk, which enters only the moves whose
     count is not 0 (so it costs the solutions, not the tree). A count evicted from the
     table is counted again;
   - the mate in one's verdict is not kept apart: it is the count of lines of one ply, in
     the same table;
   - `king_must_move` walks the cells an enemy piece could go to rather than intersecting
     bitsets, and so is asked on boards of any size;
   - so the positions counted against the budget are those of Python but for the table's
     hits, which differ; and the count that stops a search past the limit may be another
     (the moves come in the order of board.c);
   - the table has buckets of four entries, a new one taking the place of the one with the
     fewest plies left (the cheapest to count again), where Python's starts afresh when full;
   - the board is board.c's, with the mate search's keys (core.h). */

#include "core.h"

/* As in kernel/mates/search.py: the longest helpmate asked, in moves of each side. */
#define MOST_MOVES 100
#define BUCKET 4

/* The lines of `plies` moves that finish from the position of `key`. */
typedef struct {
    uint64_t key;
    uint32_t count;
    uint8_t plies, used;
} Lines;

typedef struct {
    PyObject_HEAD
    Board board;
    uint64_t key;
    Lines *table;
    uint64_t buckets;
    unsigned long long filled, most_entries;
    /* One move list per ply of the path, and the line being written. */
    MoveList lists[2 * MOST_MOVES + 2];
    Move path[2 * MOST_MOVES + 2];
    Spending spending;
    /* The most lines a solution may have, and the count that passed it (0: none did). */
    uint64_t limit, too_many;
    int busy;
} Core;

/* Returned when a count passed the limit (core->too_many says by how much). */
#define TOO_MANY (-2)

static inline int play(Core *core, const Move *m) {
    core->key = key_after(core->key, m);
    return board_play(&core->board, m);
}

static inline void undo(Core *core, const Move *m, int place) {
    board_undo(&core->board, m, place);
    core->key = key_after(core->key, m);
}

static inline int spend(Core *core, uint64_t count) {
    return spending_add(&core->spending, count);
}

/* --- the table ------------------------------------------------------------------------- */

static inline Lines *bucket_of(Core *core, uint64_t key, int plies) {
    return &core->table[((key ^ mix((uint64_t)plies)) % core->buckets) * BUCKET];
}

static inline Lines *find(Core *core, uint64_t key, int plies) {
    Lines *bucket = bucket_of(core, key, plies);
    for (int i = 0; i < BUCKET; i++)
        if (bucket[i].used && bucket[i].key == key && bucket[i].plies == plies) return &bucket[i];
    return NULL;
}

static void store(Core *core, uint64_t key, int plies, uint64_t count) {
    Lines *bucket = bucket_of(core, key, plies), *e = &bucket[0];
    for (int i = 0; i < BUCKET; i++) {
        if (!bucket[i].used) {
            e = &bucket[i];
            break;
        }
        if (bucket[i].plies < e->plies) e = &bucket[i];
    }
    core->filled += !e->used;
    e->key = key, e->plies = (uint8_t)plies, e->count = (uint32_t)count, e->used = 1;
}

/* --- moves ----------------------------------------------------------------------------- */

/* List the legal moves of the side to move in lists[ply]. */
static int legal_moves(Core *core, int ply) {
    MoveList *list = &core->lists[ply];
    if (pseudo_moves(&core->board, list) < 0) return -1;
    Context context;
    prepare(&core->board, &context);
    int kept = 0;
    for (int i = 0; i < list->count; i++)
        if (is_legal(&core->board, &context, &list->moves[i])) list->moves[kept++] = list->moves[i];
    list->count = kept;
    return 0;
}

/* List in lists[ply] the moves of the side to move that checkmate: the legal checks after
   which the other side has no move; none, unless the mate in one's walk finds one first. */
static int mating_moves(Core *core, int ply) {
    MoveList *list = &core->lists[ply], *scratch = &core->lists[ply + 1];
    list->count = 0;
    int asked = 0, side = core->board.side;
    int found = mate_in_one(&core->board, scratch, &asked);
    if (found < 0 || spend(core, (uint64_t)(core->board.counts[side] + asked)) < 0) return -1;
    if (!found) return 0;
    if (pseudo_moves(&core->board, list) < 0) return -1;
    Context context;
    prepare(&core->board, &context);
    int kept = 0, checks = 0;
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        if (!gives_check(&core->board, &context, &m) || !is_legal(&core->board, &context, &m))
            continue;
        checks++;
        int mates = checkmates(&core->board, &m, scratch);
        if (mates < 0) return -1;
        if (mates) list->moves[kept++] = m;
    }
    list->count = kept;
    return spend(core, (uint64_t)checks);
}

/* --- the mated side's last move ---------------------------------------------------------- */

/* As in kernel/mates/helpmate.py: the fewest moves of the mated side's other pieces for which
   king_must_move is asked. */
#define KING_MUST_MOVE_FROM 12


/* Tell whether `point` stands strictly between `from` and `to` on the line joining them. */
static inline int stands_between(const Board *board, int from, int to, int point) {
    int d = board->rays[between(board, from, to)] - 1;
    if (d < 0 || point == from || point == to) return 0;
    return board->rays[between(board, from, point)] - 1 == d &&
           board->rays[between(board, point, to)] - 1 == d;
}

/* kernel/mates/helpmate.py's king_must_move: whether no move of the side to move but its king's
   can be followed by a mate in one, the flights it has free now being out of reach of any
   one enemy piece's single move but for one of them. The same relaxations; the cells an
   enemy piece could go to are walked along its lines to the wall (Python intersects bitsets
   of them), so the question is asked on any board, not only up to n = 8. */
static int king_must_move(const Board *board) {
    int side = board->side, enemy = 1 - side, king = board->kings[side];
    if (king < 0) return 0;
    const uint8_t *cells = board->cells;
    /* A pawn's moves and what it may become are not walked below: with one, no answer. */
    for (int i = 0; i < board->counts[enemy]; i++)
        if (KIND_OF(cells[board->pieces[enemy][i]]) == PAWN) return 0;
    int flights[26], count = 0;
    for (int d = 0; d < 26; d++) {
        int cell = king + board->steps[d];
        uint8_t there = cells[cell];
        if (there == WALL || (there != EMPTY && SIDE_OF(there) == side)) continue;
        if (attacked(board, cell, enemy, king)) continue;
        /* An enemy slider's line to the flight that a piece of the side to move (not its
           king) stands on may open when it leaves: such a flight is not counted. */
        int blocked = 0;
        for (int i = 0; i < board->counts[enemy] && !blocked; i++) {
            int slider = board->pieces[enemy][i], kind = KIND_OF(cells[slider]);
            if (!board->slide_dirs[kind]) continue;
            int d2 = board->rays[between(board, slider, cell)] - 1;
            if (d2 < 0 || !slides_along(board, kind, d2)) continue;
            for (int point = slider + board->steps[d2]; point != cell; point += board->steps[d2])
                if (cells[point] != EMPTY && SIDE_OF(cells[point]) == side && point != king) {
                    blocked = 1;
                    break;
                }
        }
        if (!blocked) flights[count++] = cell;
    }
    if (count < 2) return 0;
    for (int i = 0; i < board->counts[enemy]; i++) {
        int origin = board->pieces[enemy][i], kind = KIND_OF(cells[origin]);
        /* The flights this piece must take itself: those no enemy line through its cell
           reaches (its leaving could open such a line). */
        int needed[26], most = 0;
        for (int f = 0; f < count; f++) {
            int opens = 0;
            for (int j = 0; j < board->counts[enemy] && !opens; j++) {
                int slider = board->pieces[enemy][j], other = KIND_OF(cells[slider]);
                if (!board->slide_dirs[other]) continue;
                int d2 = board->rays[between(board, slider, flights[f])] - 1;
                opens = d2 >= 0 && slides_along(board, other, d2) &&
                        stands_between(board, slider, flights[f], origin);
            }
            if (!opens) needed[most++] = flights[f];
        }
        if (most < 2) return 0;
        /* Any cell it could go to on an empty board from which it attacks all those flights
           but one means it might take them. */
        int at[3], to[26][3];
        for (int f = 0; f < most; f++) coordinates(board, needed[f], to[f]);
        int directions = kind == KNIGHT ? 24 : 26;
        uint32_t slides = kind == KING || kind == KNIGHT ? 0x3FFFFFFu : board->slide_dirs[kind];
        for (int d = 0; d < directions; d++) {
            if (!(slides >> d & 1)) continue;
            int step = kind == KNIGHT ? board->leaps[d] : board->steps[d];
            for (int cell = origin + step; cells[cell] != WALL; cell += step) {
                coordinates(board, cell, at);
                int taken = 0;
                for (int f = 0; f < most; f++)
                    taken += board_could_attack(board, cells[origin], to[f][0] - at[0],
                                                to[f][1] - at[1], to[f][2] - at[2]);
                if (taken >= most - 1) return 0;
                if (kind == KNIGHT || kind == KING) break;
            }
        }
    }
    return 1;
}

/* Keep in lists[ply] only the king's moves where the flights rule out every other move
   (king_must_move, asked where the other pieces have KING_MUST_MOVE_FROM moves or more). */
static void last_moves(Core *core, int ply) {
    MoveList *list = &core->lists[ply];
    int king = core->board.kings[core->board.side], others = 0;
    for (int i = 0; i < list->count; i++) others += list->moves[i].origin != king;
    if (others < KING_MUST_MOVE_FROM || !king_must_move(&core->board)) return;
    int kept = 0;
    for (int i = 0; i < list->count; i++)
        if (list->moves[i].origin == king) list->moves[kept++] = list->moves[i];
    list->count = kept;
}

/* --- the search ------------------------------------------------------------------------ */

/* Count the lines of `plies` moves from here after which the side that is to move when
   `plies` is even is checkmated; 0 with the count in `out`, -1 on an error, TOO_MANY. */
static int count_lines(Core *core, int plies, int ply, uint64_t *out) {
    Lines *known = find(core, core->key, plies);
    if (known) {
        *out = known->count;
        return 0;
    }
    uint64_t key = core->key, found = 0;
    if (plies == 1) {
        if (mating_moves(core, ply) < 0) return -1;
        found = (uint64_t)core->lists[ply].count;
    } else {
        if (legal_moves(core, ply) < 0) return -1;
        MoveList *list = &core->lists[ply];
        if (spend(core, (uint64_t)list->count) < 0) return -1;
        if (plies == 2) last_moves(core, ply);
        for (int i = 0; i < list->count; i++) {
            Move m = list->moves[i];
            uint64_t below = 0;
            int place = play(core, &m);
            int status = count_lines(core, plies - 1, ply + 1, &below);
            undo(core, &m, place);
            if (status < 0) return status;
            found += below;
            if (found > core->limit) break;
        }
    }
    if (found > core->limit) {
        core->too_many = found;
        return TOO_MANY;
    }
    store(core, key, plies, found);
    *out = found;
    return 0;
}

/* Append to `lines` every line of `plies` moves from here, after the path's first `ply`
   moves: only the moves whose lines are counted more than 0 are entered. */
static int write_lines(Core *core, int plies, int ply, PyObject *lines) {
    MoveList *list = &core->lists[ply];
    if (plies == 1) {
        if (mating_moves(core, ply) < 0) return -1;
        for (int i = 0; i < list->count; i++) {
            core->path[ply] = list->moves[i];
            PyObject *line = PyTuple_New(ply + 1);
            if (!line) return -1;
            for (int j = 0; j <= ply; j++) {
                const Move *m = &core->path[j];
                PyObject *move = Py_BuildValue("(iiiii)", m->origin, m->target, m->piece,
                                               m->captured, m->promotion);
                if (!move) {
                    Py_DECREF(line);
                    return -1;
                }
                PyTuple_SET_ITEM(line, j, move);
            }
            int failed = PyList_Append(lines, line) < 0;
            Py_DECREF(line);
            if (failed) return -1;
        }
        return 0;
    }
    if (legal_moves(core, ply) < 0) return -1;
    if (plies == 2) last_moves(core, ply);
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        uint64_t below = 0;
        int place = play(core, &m);
        int status = count_lines(core, plies - 1, ply + 1, &below);
        if (status == 0 && below) {
            core->path[ply] = m;
            status = write_lines(core, plies - 1, ply + 1, lines);
        }
        undo(core, &m, place);
        if (status < 0) return status;
    }
    return 0;
}

/* --- the Python type ------------------------------------------------------------------- */

static int core_init(Core *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"table_entries", NULL};
    long long entries;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "L", names, &entries)) return -1;
    if (entries < 1) {
        PyErr_SetString(PyExc_ValueError, "table_entries must be 1 or more");
        return -1;
    }
    uint64_t buckets = (uint64_t)entries / BUCKET ? (uint64_t)entries / BUCKET : 1;
    free(self->table);
    /* calloc: the pages are touched only as entries land on them. */
    self->table = calloc((size_t)(buckets * BUCKET), sizeof(Lines));
    if (!self->table) {
        PyErr_NoMemory();
        return -1;
    }
    self->buckets = buckets, self->filled = 0, self->most_entries = buckets * BUCKET;
    return 0;
}

static void core_dealloc(Core *self) {
    free(self->table);
    free_board(&self->board);
    for (size_t i = 0; i < sizeof self->lists / sizeof self->lists[0]; i++)
        free_moves(&self->lists[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Every line of the helpmate in `moves`, each a tuple of (origin, target, piece, captured,
   promotion); or, when there are more than `limit`, the count that passed it (an int). */
static PyObject *core_solutions(Core *self, PyObject *args) {
    int size, side, moves;
    long long limit, allowance;
    PyObject *pieces, *spend_function, *rules = Py_None;
    if (!PyArg_ParseTuple(args, "iO!iiLOL|O", &size, &PyList_Type, &pieces, &side, &moves, &limit,
                          &spend_function, &allowance, &rules))
        return NULL;
    if (size < 1 || size > LARGEST_SIZE || side < 0 || side > 1 || moves < 1 ||
        moves > MOST_MOVES || limit < 0 || limit > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "size, side, moves or limit out of range");
        return NULL;
    }
    if (!self->table) {
        PyErr_SetString(PyExc_RuntimeError, "HelpmateCore was not initialised");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this HelpmateCore is already searching");
        return NULL;
    }
    /* The table starts afresh for a new size (its keys do not hold the board's size) or a
       new limit (its counts were kept only up to the old one). */
    if ((self->board.size != size || self->limit != (uint64_t)limit) && self->filled) {
        memset(self->table, 0, (size_t)(self->buckets * BUCKET) * sizeof(Lines));
        self->filled = 0;
    }
    /* The rules' salt in the keys keeps one variant's lines from another's. */
    if (set_size(&self->board, size) < 0 || set_rules(&self->board, rules) < 0 ||
        set_pieces(&self->board, pieces, side) < 0)
        return NULL;
    self->key = board_key(&self->board);
    self->limit = (uint64_t)limit, self->too_many = 0;
    spending_start(&self->spending, spend_function, allowance);
    self->busy = 1;
    PyObject *lines = PyList_New(0);
    uint64_t total = 0;
    int status = lines ? count_lines(self, 2 * moves, 0, &total) : -1;
    if (status == 0 && total) status = write_lines(self, 2 * moves, 0, lines);
    if (spending_finish(&self->spending, status == -1)) status = -1;
    self->busy = 0;
    if (status == -1) {
        Py_XDECREF(lines);
        return NULL;
    }
    if (status == TOO_MANY) {
        Py_DECREF(lines);
        return PyLong_FromUnsignedLongLong(self->too_many);
    }
    return lines;
}

static PyMethodDef core_methods[] = {
    {"solutions", (PyCFunction)core_solutions, METH_VARARGS,
     "solutions(size, pieces, side, moves, limit, spend, allowance) -> list | int\n\n"
     "Return every line of the helpmate in `moves` (2 * moves plies, the side to move\n"
     "mated), each a tuple of (origin, target, piece code, captured code); or, when there\n"
     "are more than `limit`, the count that passed it. `pieces` and `spend` as MateCore's."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef core_members[] = {
    {"entries", T_ULONGLONG, offsetof(Core, filled), READONLY, "Entries in use in the table."},
    {"most_entries", T_ULONGLONG, offsetof(Core, most_entries), READONLY,
     "The most entries the table may hold."},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject HelpmateCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kernel._core.HelpmateCore",
    .tp_doc = "The helpmate search, compiled, with its table of `table_entries` entries.",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_members = core_members,
};
