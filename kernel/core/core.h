/* The compiled core's shared parts: the board, its moves and its checks (board.c), which the
   mate search (mate.c) and the player's search (player.c) both stand on; module.c makes them
   one extension, kernel._core.

   Each C file mirrors a Python module, which is the one to read first: board.c mirrors
   kernel/cube/rules.py and kernel/cube/position.py (and kernel/mates/mateinone.py's question, whether the
   side to move mates in one), mate.c kernel/mates/proofnumber.py, helpmate.c kernel/mates/helpmate.py,
   player.c kernel/play/alphabeta.py and kernel/play/evaluation.py, retrograde.c
   tablebase/retrograde.py. Each says at its top where it differs. */

#ifndef CUBEMATE_CORE_H
#define CUBEMATE_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

/* What a cell holds: nothing, the wall, or a piece (side << 3 | kind). */
#define EMPTY 0
#define WALL 0xFF
/* The kinds: the cube's five, then Raumschach's unicorn and pawn. How the sliders (queen,
   rook, bishop, unicorn) slide and how pawns move is the variant's (`Rules`, set_rules); the
   king's steps and the knight's leaps are every variant's. */
enum { KING = 1, QUEEN = 2, ROOK = 3, BISHOP = 4, KNIGHT = 5, UNICORN = 6, PAWN = 7 };
#define KINDS 8
#define SIDE_OF(code) ((code) >> 3)
#define KIND_OF(code) ((code)&7)
#define WALL_THICKNESS 2
/* The largest board taken (kernel/mates/proofnumber.py's CORE_LARGEST_SIZE): the tables of lines
   and leaps take 2 (2n - 1)^3 bytes, 8 MB at n = 64. */
#define LARGEST_SIZE 64

typedef struct {
    int32_t origin, target;
    uint8_t piece, captured;
    uint8_t kind;      /* the mate search's `classify`: a check, a capture, a quiet move, illegal */
    uint8_t promotion; /* the code of what a pawn becomes, EMPTY if it is no promotion */
} Move;

/* What a move leaves on its target: the piece, or what the pawn became. */
#define LANDED(m) ((m)->promotion != EMPTY ? (m)->promotion : (m)->piece)
/* Bits of Board.jumps: a knight's leap, a pawn's capture of a side. */
#define KNIGHT_JUMP 1
#define PAWN_JUMP(side) (2 << (side))
/* The most pawn pushes, pawn captures and promotion choices a variant may have. */
#define MOST_PUSHES 6
#define MOST_PAWN_CAPTURES 12
#define MOST_PROMOTIONS 6

/* A growable list of moves; with `numbers`, also a proof and a disproof number per move
   (the mate search's). */
typedef struct {
    Move *moves;
    uint64_t *pns, *dns;
    int count, capacity;
    int numbers;
} MoveList;

/* The board of one size: cells, and where each side's pieces stand. */
typedef struct {
    int size, width, area;
    uint8_t *cells;
    int32_t *index; /* cell -> its place in its side's list of pieces */
    int32_t *pieces[2];
    int counts[2];
    int kings[2];
    int side;
    int steps[26];
    uint8_t step_axes[26]; /* how many of dx, dy, dz are not 0 */
    int leaps[24];
    /* The same steps and leaps as (dx, dy, dz). */
    int8_t step_xyz[26][3], leap_xyz[24][3];
    int grid; /* the compact grid's width, 2n - 1 */
    /* Each board cell's place in the compact grid of width 2n - 1, in which the difference
       of two cells is one (dx, dy, dz) (the padded array's width n + 4 is too narrow for
       that once n >= 6); and, by such a difference plus `offset` (`between`), the direction
       from the first cell to the second plus 1 when a line joins them (0 otherwise), and
       whether a knight leaps it. */
    int32_t *compact;
    int offset;
    uint8_t *rays;
    uint8_t *jumps; /* KNIGHT_JUMP and PAWN_JUMP bits by difference (plus `offset`) */
    /* The variant's rules (set_rules): bit d of slide_dirs[kind] when the kind slides along
       steps[d]; the pawns' pushes and captures by side, as offsets (white's as given, black's
       negated) and as compact differences; what a pawn may become, in the variant's order;
       and by cell, bit `side` when a pawn of that side promotes there; bit a of pawn_axes
       when white's pawns advance along axis a (kernel/cube/variants.py's pawn_axes). */
    uint32_t slide_dirs[KINDS];
    int push_count, capture_count, promotion_count, pawn_axes;
    int pushes[2][MOST_PUSHES], pawn_captures[2][MOST_PAWN_CAPTURES];
    int capture_differences[2][MOST_PAWN_CAPTURES];
    uint8_t promotions[MOST_PROMOTIONS];
    uint8_t *promotes;
    /* The kinds the rules know (bit kind), and what the searches' keys mix in for the rules
       (0 for the cube's), so that a table kept between calls never takes one variant's
       position for another's. */
    uint32_t known_kinds;
    uint64_t rules_salt;
} Board;

/* What a node's moves are judged by: whether the side to move is in check, both kings, and
   the pieces of the side to move whose leaving uncovers a check (with the line's direction). */
typedef struct {
    int in_check, king, enemy_king;
    int checkers[2];
    int discoverers[26], directions[26], count;
} Context;

/* --- board.c ------------------------------------------------------------------------ */

int set_size(Board *board, int size);
/* Set the variant's rules on a board of the current size (set again after set_size): None
   for the cube's, else kernel/compiled.py's core_rules tuple. */
int set_rules(Board *board, PyObject *rules);
void free_board(Board *board);
int set_pieces(Board *board, PyObject *pieces, int side);
int attackers(const Board *board, int cell, int side, int lifted, int most, int *found);
int reserve(MoveList *list, int count);
void free_moves(MoveList *list);
int piece_moves(Board *board, int origin, MoveList *list);
int pseudo_moves(Board *board, MoveList *list);
void prepare(const Board *board, Context *context);
int gives_check(const Board *board, const Context *context, const Move *m);
int is_legal(const Board *board, const Context *context, const Move *m);
int has_legal_move(Board *board, MoveList *scratch);
int checkmates(Board *board, const Move *m, MoveList *scratch);
int mate_in_one(Board *board, MoveList *scratch, int *asked);

static inline int between(const Board *board, int from, int to) {
    return board->compact[to] - board->compact[from] + board->offset;
}

/* Tell whether a piece of `kind` slides along direction d (board->steps[d]). */
static inline int slides_along(const Board *board, int kind, int d) {
    return board->slide_dirs[kind] >> d & 1;
}

/* The direction d of a unit step (dx, dy, dz), in set_size's order of board->steps. */
static inline int direction_of(int dx, int dy, int dz) {
    int index = (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
    return index > 13 ? index - 1 : index;
}

static inline int attacked(const Board *board, int cell, int side, int lifted) {
    return attackers(board, cell, side, lifted, 1, NULL);
}

static inline int in_check(const Board *board, int side) {
    return board->kings[side] >= 0 && attacked(board, board->kings[side], 1 - side, -1);
}

static inline int add_promotion(MoveList *list, int origin, int target, uint8_t piece,
                                uint8_t captured, uint8_t promotion) {
    if (list->count == list->capacity && reserve(list, list->count + 1) < 0) return -1;
    Move *m = &list->moves[list->count++];
    m->origin = origin, m->target = target, m->piece = piece, m->captured = captured;
    m->promotion = promotion;
    return 0;
}

static inline int add(MoveList *list, int origin, int target, uint8_t piece, uint8_t captured) {
    return add_promotion(list, origin, target, piece, captured, EMPTY);
}

/* Add a pawn's move to `target`: one move, or one per piece it may become there. */
static inline int add_pawn(const Board *board, MoveList *list, int origin, int target,
                           uint8_t piece, uint8_t captured) {
    int side = SIDE_OF(piece);
    if (!(board->promotes[target] >> side & 1)) return add(list, origin, target, piece, captured);
    for (int i = 0; i < board->promotion_count; i++)
        if (add_promotion(list, origin, target, piece, captured,
                          (uint8_t)(side << 3 | board->promotions[i])) < 0)
            return -1;
    return 0;
}

/* Add the moves of the pawn on `origin`: its pushes onto empty cells, then its captures, in
   the variant's order (kernel/cube/rules.py's pawn_destinations). */
static inline int pawn_moves(const Board *board, int origin, MoveList *list) {
    uint8_t piece = board->cells[origin];
    int side = SIDE_OF(piece);
    for (int i = 0; i < board->push_count; i++) {
        int target = origin + board->pushes[side][i];
        if (board->cells[target] == EMPTY &&
            add_pawn(board, list, origin, target, piece, EMPTY) < 0)
            return -1;
    }
    for (int i = 0; i < board->capture_count; i++) {
        int target = origin + board->pawn_captures[side][i];
        uint8_t there = board->cells[target];
        if (there != EMPTY && there != WALL && SIDE_OF(there) != side &&
            add_pawn(board, list, origin, target, piece, there) < 0)
            return -1;
    }
    return 0;
}

/* Where a board cell is: (x, y, z), read off its place in the compact grid. */
static inline void coordinates(const Board *board, int cell, int *xyz) {
    int compact = board->compact[cell], grid = board->grid;
    xyz[0] = compact % grid, xyz[1] = compact / grid % grid, xyz[2] = compact / grid / grid;
}

/* Tell whether a piece of the cube's `kind` (dx, dy, dz) away from a cell could attack it on
   an empty board: arithmetic on the three distances, no table (on a large board a table is
   out of the cache, and this is asked of every cell a piece could move to). The tables
   (retrograde.c) are the cube's; the searches ask `board_could_attack`. */
static inline int could_attack(int kind, int dx, int dy, int dz) {
    int a = abs(dx), b = abs(dy), c = abs(dz);
    int most = a > b ? (a > c ? a : c) : (b > c ? b : c);
    int zeros = (a == 0) + (b == 0) + (c == 0);
    switch (kind) {
        case ROOK:
            return zeros == 2;
        case BISHOP:
            return zeros == 0 && a == b && b == c;
        case QUEEN:
            return zeros < 3 && (a == 0 || a == most) && (b == 0 || b == most) &&
                   (c == 0 || c == most);
        case KNIGHT:
            return zeros == 1 && a + b + c == 3 && most == 2;
        default:
            return 0;
    }
}

/* could_attack under the board's rules, for the piece `code` (a pawn attacks by its side). */
static inline int board_could_attack(const Board *board, int code, int dx, int dy, int dz) {
    int kind = KIND_OF(code);
    if (kind == KNIGHT) return could_attack(KNIGHT, dx, dy, dz);
    int a = abs(dx), b = abs(dy), c = abs(dz);
    int most = a > b ? (a > c ? a : c) : (b > c ? b : c);
    if (most == 0 || (a && a != most) || (b && b != most) || (c && c != most)) return 0;
    if (kind == KING) return most == 1;
    int d = direction_of(dx / most, dy / most, dz / most);
    if (kind == PAWN) {
        if (most != 1) return 0;
        const int *differences = board->capture_differences[SIDE_OF(code)];
        int difference = dx + board->grid * (dy + board->grid * dz);
        for (int i = 0; i < board->capture_count; i++)
            if (differences[i] == difference) return 1;
        return 0;
    }
    return slides_along(board, kind, d);
}

/* Tell whether the king's step to `target` is a move: onto an empty cell or an enemy. */
static inline int king_step_lands(const Board *board, int target, int side) {
    uint8_t there = board->cells[target];
    return there == EMPTY || (there != WALL && SIDE_OF(there) != side);
}

/* Play a move of the side to move on the board; return where the captured piece stood in
   its side's list, whose last piece takes its place (the mate searches' order of pieces). */
static inline int board_play(Board *board, const Move *m) {
    int side = board->side, enemy = 1 - side, place = -1;
    if (m->captured != EMPTY) {
        place = board->index[m->target];
        int last = board->pieces[enemy][--board->counts[enemy]];
        board->pieces[enemy][place] = last;
        board->index[last] = place;
        if (KIND_OF(m->captured) == KING) board->kings[enemy] = -1;
    }
    int mine = board->index[m->origin];
    board->pieces[side][mine] = m->target;
    board->index[m->target] = mine;
    board->cells[m->origin] = EMPTY;
    board->cells[m->target] = LANDED(m);
    if (board->kings[side] == m->origin) board->kings[side] = m->target;
    board->side = enemy;
    return place;
}

/* Take back the move just played; `place` is what board_play returned. */
static inline void board_undo(Board *board, const Move *m, int place) {
    int side = 1 - board->side, enemy = board->side;
    board->side = side;
    int mine = board->index[m->target];
    board->pieces[side][mine] = m->origin;
    board->index[m->origin] = mine;
    board->cells[m->origin] = m->piece;
    board->cells[m->target] = m->captured;
    if (board->kings[side] == m->target) board->kings[side] = m->origin;
    if (m->captured != EMPTY) {
        int moved = board->pieces[enemy][place];
        board->pieces[enemy][board->counts[enemy]] = moved;
        board->index[moved] = board->counts[enemy]++;
        board->pieces[enemy][place] = m->target;
        board->index[m->target] = place;
        if (KIND_OF(m->captured) == KING) board->kings[enemy] = m->target;
    }
}

/* --- the mate searches' keys of positions (their own, not kernel/cube/position.py's) ------------ */

static inline uint64_t mix(uint64_t x) {
    /* splitmix64's finaliser: every bit of the cell and code reaches every bit of the key. */
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static inline uint64_t cell_key(int cell, int code) {
    return mix((uint64_t)cell << 4 | code);
}

#define BLACK_TO_MOVE_KEY 0x5851F42D4C957F2DULL

/* The key of the board as it stands. */
uint64_t board_key(const Board *board);

/* The key after a move from the position of `key` (and, the same XORs, before it). */
static inline uint64_t key_after(uint64_t key, const Move *m) {
    key ^= BLACK_TO_MOVE_KEY ^ cell_key(m->origin, m->piece) ^ cell_key(m->target, LANDED(m));
    if (m->captured != EMPTY) key ^= cell_key(m->target, m->captured);
    return key;
}

/* --- a search's count of positions, handed to the Python budget's `spend` ----------------- */

/* Positions counted between two calls of `spend`. */
#define SPEND_EVERY 1024

/* The positions counted in a call, those not yet handed to `spend`, `spend` itself, and how
   many the budget has left (past them, `spend` raises). */
typedef struct {
    uint64_t nodes, unspent, allowance;
    PyObject *spend;
} Spending;

int spending_flush(Spending *spending);
/* Start counting a call's positions against `allowance`, handing them to `spend`. */
void spending_start(Spending *spending, PyObject *spend, long long allowance);
/* End a call: hand on the positions not yet spent unless the call `failed` (its exception
   is set); return whether it failed, the last hand-over included. */
int spending_finish(Spending *spending, int failed);

/* Count `count` positions; hand them on every SPEND_EVERY, and at once when they would take
   the count past the budget's allowance, the ones before them first: the budget then refuses
   this very count and says how many it had, as it would in Python. */
static inline int spending_add(Spending *spending, uint64_t count) {
    if (spending->nodes + count > spending->allowance) {
        if (spending_flush(spending) < 0) return -1;
        spending->unspent = count;
        spending->nodes += count;
        return spending_flush(spending);
    }
    spending->nodes += count;
    spending->unspent += count;
    return spending->unspent >= SPEND_EVERY ? spending_flush(spending) : 0;
}

/* --- the types of mate.c, helpmate.c and player.c, which module.c adds to the module ------ */

extern PyTypeObject MateCoreType;
extern PyTypeObject HelpmateCoreType;
extern PyTypeObject PlayerCoreType;

/* --- retrograde.c: one ending's endgame table, solved (a function of the module) ---------- */

PyObject *retrograde(PyObject *self, PyObject *args);
PyObject *retrograde_verify(PyObject *self, PyObject *args);
PyObject *retrograde_lean(PyObject *self, PyObject *args);
PyObject *retrograde_widen(PyObject *self, PyObject *args);

#endif
