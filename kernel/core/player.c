/* The player's search of kernel/play/alphabeta.py, compiled, with the evaluation of
   kernel/play/evaluation.py: the same principal variation search, move by move.

   kernel/play/alphabeta.py is the search to read first; this file runs it 20 to 40 times faster
   (bench/play.py), and CompiledSearcher (kernel/play/alphabeta_core.py) hands it each iteration's
   root when it was built. tests/test_playercore.py holds the two to each other: at a fixed
   depth the same move, the same score and the same count of positions.

   The same as in Python, so that the two visit the same tree: the iterations are Python's
   (Searcher.search); each root, the principal variation search under it, the quiescence, the
   table and its replacement, the killers and the history, the check extension, mate scores,
   repetitions (the game's and the path's) and the fifty-move rule; the moves tried in the
   same order, which means the pieces kept in the order of Python's dicts (a piece that
   moves, or comes back, goes last: see `take` and `put`), the steps in the order of
   kernel/cube/directions.py, stable sorts where Python's are, and the position's key computed
   as Python computes it (`piece_key`: CPython's hash of the tuple (cell, salt)), so that the
   table and the repetitions see the same keys. The evaluation's numbers are the same
   arithmetic on the same doubles, rounded half to even as Python's round.

   Different, because C can afford it or needs it:
   - the search recurses (at most MAX_PLY deep) and returns STOPPED up the path instead of
     raising OutOfTime; the position it plays on is its own copy, so nothing has to be put
     back in Python when it stops;
   - the clock is looked at every CLOCK_EVERY positions (the longest gap between two looks
     kept, as Python keeps the longest between two nodes), and the stop request of a signal
     every POLL_EVERY positions or every POLL_SECONDS, through `poll`, after the signals'
     handlers have had their turn;
   - a table entry takes 32 bytes, not Python's 160: the caller chooses how many slots
     (the same number as Python's table when the two are compared);
   - each piece's worth on each cell is kept in an array by kind and cell, filled the first
     time it is asked, as Tables.worth fills its dict (a black pawn's apart: it is a white
     pawn's on the cell turned through the centre, its advance bonus handed over by Python);
   - the passed-pawn term compares every pair of pawns, where Python looks each pawn's
     opposers up in a set, and keeps the terms found by a key of the pawns alone, updated
     move by move (`pawn_term`), where Python keeps them by the sets of the pawns' cells; the
     pawns stand still in most moves, and without it the term cost a third of the search's
     speed (bench/raumschach.py measures it: docs/arena.md, "Raumschach's evaluation");

   Raumschach's pawns as Python has them: a pawn's moves are its pushes then its captures,
   each promotion in the variant's order; in check, the other pieces' evasions by the cells
   of the check first and then each pawn's; a pawn's move resets the fifty-move count; and a
   promotion changes the material but not `army`, as Searcher.make. */

#include <math.h>
#include <time.h>

#include "core.h"

/* As in kernel/play/alphabeta.py. */
#define MATE 1000000
#define MATE_THRESHOLD (MATE - 10000)
#define INFINITY_SCORE (10 * MATE)
#define MAX_PLY 100
#define QUIESCENCE_PLIES 4
#define DELTA_MARGIN 200
#define FIFTY_MOVE_PLIES 100
/* evaluation.py's DRAWISH_FROM_SIZE and MATING_PIECES_ON_4. */
#define DRAWISH_FROM_SIZE 4
#define MATING_PIECES_ON_4 3
enum { EXACT = 0, LOWER = 1, UPPER = 2 };
/* Positions between two looks at the clock, and between two looks at a stop request. */
#define CLOCK_EVERY 16
#define POLL_EVERY 1024
#define POLL_SECONDS 0.02
/* The passed-pawn terms kept (a power of two): the pawns change in few of the moves searched,
   so most evaluations find their pawns' term here. */
#define PAWN_SLOTS 4096
/* What a search returns up its path once it must stop (its score is then not used). */
#define STOPPED 0

typedef struct {
    int64_t key;
    int32_t score;
    int16_t depth;
    uint8_t kind, used, has_move;
    Move move;
} Entry;

/* A move and what it is sorted by. */
typedef struct {
    int64_t key;
    int32_t place;
} SortKey;

typedef struct {
    PyObject_HEAD
    Board board;
    /* The key as Python's Position keeps it, and what it is made of. */
    int64_t key, black_to_move;
    int64_t salts[16];
    char letters[16];
    /* The evaluation: signed values by code, each kind's average reach, the weights. */
    int values[16];
    double average[KINDS];
    double blocking, placement, exposure, king_reach;
    int cornering, start_material, ray_limit, drawish, mating_pieces;
    /* What a draw is worth to white: the contempt, against the side searched for. */
    int draw;
    /* The prunings on (alphabeta.py's Pruning): null move, late-move reductions; and their
       numbers, alphabeta.py's NULL_* and LMR_* handed over (`pruning_numbers`). */
    int null_move, late_move_reductions;
    int futility, futility_margin;
    int null_depth, null_reduction, null_deep;
    int lmr_depth, lmr_moves, lmr_second_moves, lmr_second_depth, lmr_third_moves,
        lmr_third_depth;
    /* Counter-moves and the history malus on (orders, not prunings): Pruning's. */
    int counter_moves, history_malus;
    /* Each kind's steps in kernel/play/evaluation.py's order (that of kernel/cube/directions.py), as
       (dx, dy, dz) and as offsets in the padded array; whether the kind slides. */
    int8_t step_xyz[KINDS][26][3];
    int steps[KINDS][26], step_count[KINDS], slides[KINDS];
    /* Each kind's worth on a cell (material and placement, white's sign), once known; a
       black pawn's, which is not a white pawn's turned round, in slot 0. */
    int32_t *worth[KINDS];
    uint8_t *worth_known[KINDS];
    /* A white pawn's bonus for its steps towards promotion, by (x, y, z) (x + n (y + n z)),
       and what it gains there when passed (NULL: no passed-pawn term); each side's pawns'
       (x, y, z, passed) as passed_pawns finds them. */
    int32_t *advance, *passed;
    int *pawns[2];
    /* The pawns' own key (the pieces' keys of the pawns alone), and the passed-pawn terms
       found, by it: PAWN_SLOTS of (key, term). */
    int64_t pawn_key;
    int64_t *pawn_keys;
    int32_t *pawn_terms;
    /* The kinds the variant has (its codes' kinds run 1 ... kinds): the history's rows. */
    int kinds;
    int material, army[2];
    /* The table: its own, or the memory of a buffer handed in (`table=`), which a player
       keeps from one move to the next (Player.keep_table); then `lent` holds the buffer. */
    Entry *table;
    uint64_t mask;
    Py_buffer lent;
    int borrowed;
    /* The game's positions (key -> how often it stood), and the keys of the path. */
    int64_t *game_keys;
    int32_t *game_counts;
    uint64_t game_mask;
    int64_t path[MAX_PLY + 4];
    int path_length;
    int quiet_plies;
    int quiet_stack[MAX_PLY + 4];
    int root_depth;
    /* Killers by ply, the history by piece code and target cell. */
    Move killers[MAX_PLY + 2][2];
    uint8_t killer_count[MAX_PLY + 2];
    int64_t *history;
    /* The quiet move that last cut off after each move, by that move's piece code and target
       (a piece of EMPTY: none yet); the move played at each ply of the path, and whether it
       was a pass (Searcher.counters and Searcher.played). */
    Move *counters;
    Move played[MAX_PLY + 2];
    uint8_t passed_at[MAX_PLY + 2];
    /* The history slots of the quiet moves each ply's node searched before a cut-off
       (history malus on), and how many each buffer holds. */
    int64_t *tried[MAX_PLY + 2];
    int tried_capacity[MAX_PLY + 2];
    /* The principal variation of each ply. */
    Move pv[MAX_PLY + 2][MAX_PLY + 2];
    int pv_length[MAX_PLY + 2];
    /* The moves of each ply of the path, and scratch lists a node fills and empties. */
    MoveList lists[MAX_PLY + 2];
    MoveList captures, quiet, evasions, scratch;
    int *found;
    SortKey *sort_keys;
    int sort_capacity;
    /* The limits, the positions counted, and why the search stopped. */
    unsigned long long nodes;
    long long node_limit;
    double deadline, last_clock, longest_gap, last_poll;
    unsigned long long next_poll;
    PyObject *poll;
    int stopped, failed, busy;
} Player;

/* --- keys, as kernel/cube/position.py makes them --------------------------------------------- */

/* CPython's hash of the tuple (cell, salt), both non-negative ints below 2**61 - 1 (which
   hash to themselves): xxHash's mixing, Objects/tupleobject.c. */
static inline int64_t piece_key(const Player *p, int cell, int code) {
    const uint64_t prime1 = 11400714785074694791ULL, prime2 = 14029467366897019727ULL,
                   prime5 = 2870177450012600261ULL;
    uint64_t lanes[2] = {(uint64_t)cell, (uint64_t)p->salts[code]};
    uint64_t acc = prime5;
    for (int i = 0; i < 2; i++) {
        acc += lanes[i] * prime2;
        acc = (acc << 31) | (acc >> 33);
        acc *= prime1;
    }
    acc += 2 ^ (prime5 ^ 3527539UL);
    if (acc == (uint64_t)-1) return 1546275796;
    return (int64_t)acc;
}

/* --- the board, its pieces in Python's dict order ---------------------------------------- */

/* Take the piece on `cell` out of its side's list; those after it move up one place. */
static inline void take(Board *b, int side, int cell) {
    int place = b->index[cell], count = --b->counts[side];
    int32_t *pieces = b->pieces[side];
    for (int i = place; i < count; i++) {
        pieces[i] = pieces[i + 1];
        b->index[pieces[i]] = i;
    }
}

/* Put a piece on `cell` last in its side's list. */
static inline void put(Board *b, int side, int cell) {
    int place = b->counts[side]++;
    b->pieces[side][place] = cell;
    b->index[cell] = place;
}

/* --- the evaluation, as kernel/play/evaluation.py -------------------------------------------- */

static inline int code_index(const Player *p, int code) {
    return SIDE_OF(code) * p->kinds + KIND_OF(code) - 1;
}

/* Tables.worth: a piece's material and placement on a cell, signed (white's positive). A
   black pawn is valued as a white one on the cell turned through the centre. */
static int worth(Player *p, int code, int cell) {
    int kind = KIND_OF(code), black_pawn = kind == PAWN && SIDE_OF(code);
    int slot = black_pawn ? 0 : kind;
    if (!p->worth_known[slot][cell]) {
        int xyz[3];
        coordinates(&p->board, cell, xyz);
        int size = p->board.size;
        if (black_pawn)
            for (int i = 0; i < 3; i++) xyz[i] = size - 1 - xyz[i];
        double total = 0.0;
        for (int s = 0; s < p->step_count[kind]; s++) {
            int x = xyz[0], y = xyz[1], z = xyz[2];
            double weight = 1.0;
            for (int far = 0; far < (p->slides[kind] ? p->ray_limit : 1); far++) {
                x += p->step_xyz[kind][s][0], y += p->step_xyz[kind][s][1];
                z += p->step_xyz[kind][s][2];
                if (!(0 <= x && x < size && 0 <= y && y < size && 0 <= z && z < size)) break;
                total += weight;
                weight *= 1.0 - p->blocking;
            }
        }
        double reach = total - p->average[kind];
        int bonus = kind == KING ? 0 : (int)nearbyint(p->placement * reach);
        if (kind == PAWN) bonus += p->advance[xyz[0] + size * (xyz[1] + size * xyz[2])];
        p->worth[slot][cell] = abs(p->values[kind]) + bonus; /* values[kind]: white's */
        p->worth_known[slot][cell] = 1;
    }
    int known = p->worth[slot][cell];
    return SIDE_OF(code) ? -known : known;
}

static inline int move_delta(Player *p, const Move *m) {
    int delta = worth(p, LANDED(m), m->target) - worth(p, m->piece, m->origin);
    if (m->captured != EMPTY) delta -= worth(p, m->captured, m->target);
    return delta;
}

static int king_safety(const Player *p, int side) {
    const Board *b = &p->board;
    int king = b->kings[side];
    if (king < 0) return 0;
    int open = 0;
    for (int s = 0; s < 26; s++) {
        uint8_t there = b->cells[king + p->steps[KING][s]];
        if (there != WALL && (there == EMPTY || SIDE_OF(there) != side)) open++;
    }
    double start = p->start_material;
    double enemy = p->army[1 - side] / start, own = 2 * p->army[side] / start;
    double danger = (enemy < 1.0 ? enemy : 1.0) * (own < 1.0 ? own : 1.0);
    return (int)nearbyint((p->king_reach * (1.0 - danger) - p->exposure * danger) * open);
}

static int cornering(const Player *p) {
    for (int loser = 0; loser < 2; loser++) {
        if (p->army[loser] == 0 && p->army[1 - loser] > 0) {
            int ours = p->board.kings[1 - loser], theirs = p->board.kings[loser];
            if (ours < 0 || theirs < 0) return 0;
            int a[3], c[3], distance = 0;
            coordinates(&p->board, ours, a);
            coordinates(&p->board, theirs, c);
            for (int i = 0; i < 3; i++) {
                int d = abs(a[i] - c[i]);
                if (d > distance) distance = d;
            }
            int bonus = p->cornering * (p->board.size - distance);
            return loser == 1 ? bonus : -bonus;
        }
    }
    return 0;
}

/* evaluation.py's can_mate: a queen or a pawn (which may become one), or mating_pieces
   pieces or more besides the king (on the 4-cube at most MATING_PIECES_ON_4). */
static int can_mate(const Player *p, int side) {
    const Board *b = &p->board;
    int needed = p->mating_pieces;
    if (b->size == 4 && needed > MATING_PIECES_ON_4) needed = MATING_PIECES_ON_4;
    if (b->counts[side] - (b->kings[side] >= 0) >= needed) return 1;
    for (int i = 0; i < b->counts[side]; i++)
        if (KIND_OF(b->cells[b->pieces[side][i]]) == QUEEN ||
            KIND_OF(b->cells[b->pieces[side][i]]) == PAWN)
            return 1;
    return 0;
}

/* evaluation.py's opposes: the black pawn on `black` stands ahead of the white one on `white`
   along every axis pawns advance on (`axes`, a bit an axis; further along one) and at most
   one cell beside it along the others. */
static inline int opposes(int axes, const int *white, const int *black) {
    int ahead = 0;
    for (int axis = 0; axis < 3; axis++) {
        int apart = black[axis] - white[axis];
        if (axes >> axis & 1) {
            if (apart < 0) return 0;
            ahead |= apart > 0;
        } else if (apart > 1 || apart < -1) {
            return 0;
        }
    }
    return ahead;
}

/* evaluation.py's passed_pawns: for white, the bonus of each pawn no enemy pawn opposes (a
   black pawn's that of a white one on the cell turned through the centre). Python looks each
   pawn's opposers up in a set kept by cell; here every pair is compared, which for the few
   pawns of a game costs less than keeping the sets. */
static int passed_pawns(Player *p) {
    const Board *b = &p->board;
    int count[2] = {0, 0};
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < b->counts[side]; i++) {
            int cell = b->pieces[side][i];
            if (KIND_OF(b->cells[cell]) != PAWN) continue;
            int *pawn = p->pawns[side] + 4 * count[side]++;
            coordinates(b, cell, pawn);
            pawn[3] = 1; /* passed, until an enemy pawn is found opposing it */
        }
    for (int w = 0; w < count[0]; w++)
        for (int k = 0; k < count[1]; k++) {
            int *white = p->pawns[0] + 4 * w, *black = p->pawns[1] + 4 * k;
            if (opposes(b->pawn_axes, white, black)) white[3] = black[3] = 0;
        }
    int n = b->size, last = n - 1, total = 0;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < count[side]; i++) {
            const int *at = p->pawns[side] + 4 * i;
            if (!at[3]) continue;
            if (side == 0)
                total += p->passed[at[0] + n * (at[1] + n * at[2])];
            else
                total -= p->passed[last - at[0] + n * (last - at[1] + n * (last - at[2]))];
        }
    return total;
}

/* The passed-pawn term of the pawns standing, from the terms kept by the pawns' key (which
   is the pawns alone, so equal keys are equal pawns but for a collision of 64 bits). */
static int pawn_term(Player *p) {
    uint64_t slot = ((uint64_t)p->pawn_key * 0x9E3779B97F4A7C15ULL) >> 52; /* 12 bits */
    if (p->pawn_keys[slot] != p->pawn_key) { /* an empty slot: key 0 (no pawns), term 0 */
        p->pawn_terms[slot] = passed_pawns(p);
        p->pawn_keys[slot] = p->pawn_key;
    }
    return p->pawn_terms[slot];
}

/* What a move changes in the pawns' key: a pawn leaving, arriving (not promoted) or taken. */
static inline int64_t pawn_key_change(const Player *p, const Move *m) {
    int64_t change = 0;
    if (KIND_OF(m->piece) == PAWN) {
        change ^= piece_key(p, m->origin, m->piece);
        if (m->promotion == EMPTY) change ^= piece_key(p, m->target, m->piece);
    }
    if (m->captured != EMPTY && KIND_OF(m->captured) == PAWN)
        change ^= piece_key(p, m->target, m->captured);
    return change;
}

/* The score of the position for the side to move; a position neither side can mate in
   gains `draw` (white's sign) beyond its divided score, as evaluation.py's evaluate. */
static int evaluate(Player *p) {
    int score = p->material + king_safety(p, 0) - king_safety(p, 1);
    if (!(p->army[0] && p->army[1])) score += cornering(p);
    if (p->passed) score += pawn_term(p);
    if ((score || p->draw) && p->board.size >= DRAWISH_FROM_SIZE) {
        int favoured = score >= 0 ? 0 : 1;
        if (!can_mate(p, favoured)) {
            if (p->drawish > 1) score /= p->drawish; /* towards zero, as evaluation.py's */
            if (p->draw && !can_mate(p, 1 - favoured)) score += p->draw;
        }
    }
    return p->board.side == 0 ? score : -score;
}

/* Searcher.draw_score: a draw's score for the side to move. */
static inline int draw_score(const Player *p) {
    return p->board.side == 0 ? p->draw : -p->draw;
}

/* --- making moves ------------------------------------------------------------------------ */

static inline int same_move(const Move *a, const Move *b) {
    return a->origin == b->origin && a->target == b->target && a->piece == b->piece &&
           a->captured == b->captured && a->promotion == b->promotion;
}

static void make(Player *p, const Move *m) {
    Board *b = &p->board;
    int side = b->side, enemy = 1 - side;
    p->material += move_delta(p, m);
    if (p->passed) p->pawn_key ^= pawn_key_change(p, m);
    int64_t key = p->key ^ p->black_to_move ^ piece_key(p, m->origin, m->piece) ^
                  piece_key(p, m->target, LANDED(m));
    if (m->captured != EMPTY) {
        p->army[enemy] -= abs(p->values[m->captured]);
        take(b, enemy, m->target);
        key ^= piece_key(p, m->target, m->captured);
        if (KIND_OF(m->captured) == KING) b->kings[enemy] = -1;
    }
    /* A promotion: the mover's army gains the new piece, less its pawn (Searcher.make). */
    if (m->promotion != EMPTY)
        p->army[side] += abs(p->values[m->promotion]) - abs(p->values[m->piece]);
    take(b, side, m->origin);
    b->cells[m->origin] = EMPTY;
    b->cells[m->target] = LANDED(m);
    put(b, side, m->target);
    if (b->kings[side] == m->origin) b->kings[side] = m->target;
    b->side = enemy;
    p->key = key;
    p->path[p->path_length++] = key;
    p->quiet_stack[p->path_length] = p->quiet_plies;
    /* A capture or a pawn's move starts the fifty-move count again. */
    p->quiet_plies = m->captured != EMPTY || KIND_OF(m->piece) == PAWN ? 0 : p->quiet_plies + 1;
}

/* Searcher.make_null: pass, the other side to move; the path gets the key, the fifty-move
   count stays. */
static void make_null(Player *p) {
    p->board.side = 1 - p->board.side;
    p->key ^= p->black_to_move;
    p->path[p->path_length++] = p->key;
    p->quiet_stack[p->path_length] = p->quiet_plies;
}

static void unmake_null(Player *p) {
    p->quiet_plies = p->quiet_stack[p->path_length--];
    p->key = p->path_length ? p->path[p->path_length - 1] : p->path[MAX_PLY + 3];
    p->board.side = 1 - p->board.side;
}

/* Searcher.has_pieces: the side to move has a piece besides its king and pawns. */
static int has_pieces(const Player *p) {
    const Board *b = &p->board;
    int side = b->side;
    for (int i = 0; i < b->counts[side]; i++) {
        int kind = KIND_OF(b->cells[b->pieces[side][i]]);
        if (kind != KING && kind != PAWN) return 1;
    }
    return 0;
}

static void unmake(Player *p, const Move *m) {
    Board *b = &p->board;
    int side = 1 - b->side, enemy = b->side;
    p->quiet_plies = p->quiet_stack[p->path_length--];
    p->key = p->path_length ? p->path[p->path_length - 1] : p->path[MAX_PLY + 3];
    take(b, side, m->target);
    b->cells[m->origin] = m->piece;
    b->cells[m->target] = m->captured;
    put(b, side, m->origin);
    if (b->kings[side] == m->target) b->kings[side] = m->origin;
    if (m->captured != EMPTY) {
        put(b, enemy, m->target);
        p->army[enemy] += abs(p->values[m->captured]);
        if (KIND_OF(m->captured) == KING) b->kings[enemy] = m->target;
    }
    if (m->promotion != EMPTY)
        p->army[side] -= abs(p->values[m->promotion]) - abs(p->values[m->piece]);
    b->side = side;
    p->material -= move_delta(p, m);
    if (p->passed) p->pawn_key ^= pawn_key_change(p, m);
}

/* How often the position now has stood: in the game before the search, and on its path. */
static int seen(const Player *p, int64_t key) {
    int count = 0;
    for (uint64_t i = (uint64_t)key & p->game_mask;; i = (i + 1) & p->game_mask) {
        if (!p->game_counts[i]) break;
        if (p->game_keys[i] == key) {
            count = p->game_counts[i];
            break;
        }
    }
    for (int i = 0; i < p->path_length; i++) count += p->path[i] == key;
    return count;
}

/* --- counting, the clock and stop requests ------------------------------------------------ */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Count a node; return 1 when the search must stop (the node limit, the clock, a request, or
   an exception from `poll` or a signal's handler, which then stays set). */
static int count_node(Player *p) {
    p->nodes++;
    if (p->node_limit >= 0 && p->nodes > (unsigned long long)p->node_limit) return p->stopped = 1;
    if (p->nodes % CLOCK_EVERY) return 0;
    double time = now();
    if (p->deadline >= 0) {
        double gap = time - p->last_clock;
        if (gap > p->longest_gap) p->longest_gap = gap;
        p->last_clock = time;
        if (time + p->longest_gap >= p->deadline) return p->stopped = 1;
    }
    if (p->nodes >= p->next_poll || time - p->last_poll >= POLL_SECONDS) {
        p->next_poll = p->nodes + POLL_EVERY;
        p->last_poll = time;
        if (PyErr_CheckSignals() < 0) return p->failed = p->stopped = 1;
        PyObject *answer = PyObject_CallNoArgs(p->poll);
        if (!answer) return p->failed = p->stopped = 1;
        int stop = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (stop) return p->failed = (stop < 0), p->stopped = 1;
    }
    return 0;
}

static inline int fail(Player *p) {
    return p->failed = p->stopped = 1;
}

/* --- moves ---------------------------------------------------------------------------------- */

/* Sort the first `count` sort keys by key, then by place (so: stably): by insertion when
   few, else by merging runs of them bottom-up through a second array. */
static int sort_keys(Player *p, int count) {
    SortKey *keys = p->sort_keys;
    if (count <= 16) {
        for (int i = 1; i < count; i++) {
            SortKey item = keys[i];
            int j = i;
            while (j > 0 && keys[j - 1].key > item.key) keys[j] = keys[j - 1], j--;
            keys[j] = item;
        }
        return 0;
    }
    SortKey *other = malloc((size_t)count * sizeof(SortKey)), *from = keys, *to = other;
    if (!other) return PyErr_NoMemory(), fail(p), -1;
    for (int width = 1; width < count; width *= 2) {
        for (int left = 0; left < count; left += 2 * width) {
            int middle = left + width < count ? left + width : count;
            int right = left + 2 * width < count ? left + 2 * width : count;
            int i = left, j = middle, k = left;
            while (i < middle && j < right)
                to[k++] = from[j].key < from[i].key ? from[j++] : from[i++];
            while (i < middle) to[k++] = from[i++];
            while (j < right) to[k++] = from[j++];
        }
        SortKey *swap = from;
        from = to, to = swap;
    }
    if (from != keys) memcpy(keys, from, (size_t)count * sizeof(SortKey));
    free(other);
    return 0;
}

/* Sort a list's moves by their keys, equal keys in the order they came (Python's sort is
   stable): an insertion sort of (key, move) pairs, since the lists that need sorting are short
   (captures; the quiet moves that have a history, the rest staying last in their order). */
static int sort_by(Player *p, MoveList *list, int64_t (*key_of)(const Player *, const Move *),
                   int unkeyed_last) {
    int count = list->count;
    if (count < 2) return 0;
    if (count > p->sort_capacity) {
        SortKey *keys = realloc(p->sort_keys, (size_t)count * sizeof(SortKey));
        if (!keys) return PyErr_NoMemory(), fail(p), -1;
        p->sort_keys = keys, p->sort_capacity = count;
    }
    if (reserve(&p->scratch, count) < 0) return fail(p), -1;
    /* With `unkeyed_last`, moves of key 0 keep their order between those of a lower key and
       those of a higher (a history lowered below none, by the malus): only those with a key
       are sorted. */
    int keyed = 0, rest = 0;
    Move *moves = list->moves, *unkeyed = p->scratch.moves;
    SortKey *keys = p->sort_keys;
    for (int i = 0; i < count; i++) {
        int64_t key = key_of(p, &moves[i]);
        if (unkeyed_last && key == 0)
            unkeyed[rest++] = moves[i];
        else
            keys[keyed].key = key, keys[keyed++].place = i;
    }
    if (sort_keys(p, keyed) < 0) return -1;
    if (unkeyed_last && keyed == 0) return 0;
    /* The sorted moves go to the scratch list after the unkeyed ones, then back in order:
       those keyed below 0, the unkeyed, those keyed above 0. */
    if (reserve(&p->scratch, rest + keyed) < 0) return fail(p), -1;
    unkeyed = p->scratch.moves;
    for (int i = 0; i < keyed; i++) unkeyed[rest + i] = moves[keys[i].place];
    int below = 0;
    while (below < keyed && keys[below].key < 0) below++;
    memcpy(moves, unkeyed + rest, (size_t)below * sizeof(Move));
    memcpy(moves + below, unkeyed, (size_t)rest * sizeof(Move));
    memcpy(moves + below + rest, unkeyed + rest + below, (size_t)(keyed - below) * sizeof(Move));
    return 0;
}

static int64_t capture_order(const Player *p, const Move *m) {
    return abs(p->values[m->piece]) - 16 * abs(p->values[m->captured]);
}

/* Where a move's history (and its counter-move) is kept: by its piece code and target. */
static inline int64_t history_slot(const Player *p, const Move *m) {
    return (int64_t)code_index(p, m->piece) * p->board.area + m->target;
}

/* Minus the history: a quiet move never cut has key 0, and comes after those that cut
   (and before those the history malus lowered below none). */
static int64_t history_order(const Player *p, const Move *m) {
    return -p->history[history_slot(p, m)];
}

static inline int push(Player *p, MoveList *list, int origin, int target, uint8_t piece,
                       uint8_t captured) {
    if (add(list, origin, target, piece, captured) < 0) return fail(p), -1;
    return 0;
}

/* Add a pawn's move (each promotion, if it promotes there). */
static inline int push_pawn(Player *p, MoveList *list, int origin, int target, uint8_t piece,
                            uint8_t captured) {
    if (add_pawn(&p->board, list, origin, target, piece, captured) < 0) return fail(p), -1;
    return 0;
}

/* Add a move as it is, its promotion kept. */
static int append(Player *p, MoveList *list, const Move *m) {
    if (add_promotion(list, m->origin, m->target, m->piece, m->captured, m->promotion) < 0)
        return fail(p), -1;
    return 0;
}

/* Add a move found by its target (no promotion yet): a pawn's, one per piece it may become. */
static inline int push_pawn_or(Player *p, MoveList *list, const Move *m) {
    if (KIND_OF(m->piece) == PAWN)
        return push_pawn(p, list, m->origin, m->target, m->piece, m->captured);
    return push(p, list, m->origin, m->target, m->piece, m->captured);
}

/* Searcher.pseudo_legal: the captures and the quiet moves, piece by piece in dict order. */
static int pseudo_legal(Player *p) {
    Board *b = &p->board;
    int side = b->side;
    p->captures.count = p->quiet.count = 0;
    for (int i = 0; i < b->counts[side]; i++) {
        int origin = b->pieces[side][i];
        uint8_t piece = b->cells[origin];
        int kind = KIND_OF(piece);
        if (kind == PAWN) {
            /* pawn_destinations: the pushes, then the captures. */
            for (int s = 0; s < b->push_count; s++) {
                int target = origin + b->pushes[side][s];
                if (b->cells[target] == EMPTY &&
                    push_pawn(p, &p->quiet, origin, target, piece, EMPTY) < 0)
                    return -1;
            }
            for (int s = 0; s < b->capture_count; s++) {
                int target = origin + b->pawn_captures[side][s];
                uint8_t there = b->cells[target];
                if (there != EMPTY && there != WALL && SIDE_OF(there) != side &&
                    push_pawn(p, &p->captures, origin, target, piece, there) < 0)
                    return -1;
            }
            continue;
        }
        for (int s = 0; s < p->step_count[kind]; s++) {
            int step = p->steps[kind][s], target = origin + step;
            uint8_t there = b->cells[target];
            while (there == EMPTY) {
                if (push(p, &p->quiet, origin, target, piece, EMPTY) < 0) return -1;
                if (!p->slides[kind]) break;
                target += step;
                there = b->cells[target];
            }
            if (there != EMPTY && there != WALL && SIDE_OF(there) != side)
                if (push(p, &p->captures, origin, target, piece, there) < 0) return -1;
        }
    }
    return 0;
}

/* Searcher.evasions (Analysis.legal_moves in check): the king's steps, then, against one
   checker, the pieces that take it or block its line, cell by cell, in dict order. */
static int evasions(Player *p, const Context *context, MoveList *list) {
    Board *b = &p->board;
    int side = b->side, king = b->kings[side];
    list->count = 0;
    if (king < 0) return 0;
    for (int s = 0; s < 26; s++) {
        int target = king + p->steps[KING][s];
        uint8_t there = b->cells[target];
        if (there != EMPTY && (there == WALL || SIDE_OF(there) == side)) continue;
        if (!attacked(b, target, 1 - side, king))
            if (push(p, list, king, target, b->cells[king], there) < 0) return -1;
    }
    if (context->in_check != 1) return 0;
    int checker = context->checkers[0];
    int d = b->rays[between(b, checker, king)] - 1;
    int kind = KIND_OF(b->cells[checker]);
    int step = d >= 0 && kind != KNIGHT && kind != KING && kind != PAWN ? b->steps[d] : 0;
    for (int target = checker;; target += step) {
        if (target == king) break;
        int count = attackers(b, target, side, -1, b->counts[side], p->found);
        for (int i = 0; i < count; i++) {
            Move m = {p->found[i], target, b->cells[p->found[i]], b->cells[target], 0, EMPTY};
            /* A pawn does not always move where it attacks: its moves come below. */
            if (m.origin != king && KIND_OF(m.piece) != PAWN && is_legal(b, context, &m))
                if (push(p, list, m.origin, m.target, m.piece, m.captured) < 0) return -1;
        }
        if (!step) break;
    }
    if (!b->push_count) return 0;
    /* The pawns', in dict order: each move of each pawn that meets the check. */
    for (int i = 0; i < b->counts[side]; i++) {
        int origin = b->pieces[side][i];
        if (KIND_OF(b->cells[origin]) != PAWN) continue;
        p->scratch.count = 0;
        if (pawn_moves(b, origin, &p->scratch) < 0) return fail(p), -1;
        for (int j = 0; j < p->scratch.count; j++) {
            Move m = p->scratch.moves[j];
            if (is_legal(b, context, &m) && append(p, list, &m) < 0) return -1;
        }
    }
    return 0;
}

/* Searcher.captures: the legal captures worth trying out of check, found from the victims,
   sorted by (cost - 16 gain, then the move as Python compares its tuple). */
typedef struct {
    int64_t key;
    char letter, promotion;
    Move move;
} Capture;

static int compare_capture(const void *a, const void *b) {
    const Capture *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->letter != y->letter) return x->letter < y->letter ? -1 : 1;
    if (x->move.origin != y->move.origin) return x->move.origin < y->move.origin ? -1 : 1;
    if (x->move.target != y->move.target) return x->move.target < y->move.target ? -1 : 1;
    return x->promotion < y->promotion ? -1 : x->promotion > y->promotion;
}

static int captures(Player *p, const Context *context, MoveList *list, int shortfall) {
    Board *b = &p->board;
    int side = b->side, enemy = 1 - side;
    list->count = 0;
    for (int v = 0; v < b->counts[enemy]; v++) {
        int target = b->pieces[enemy][v];
        uint8_t victim = b->cells[target];
        int gain = abs(p->values[victim]);
        if (gain + DELTA_MARGIN < shortfall) continue;
        int guarded = -1;
        int count = attackers(b, target, side, -1, b->counts[side], p->found);
        for (int i = 0; i < count; i++) {
            int origin = p->found[i];
            uint8_t piece = b->cells[origin];
            int cost = abs(p->values[piece]);
            if (cost > gain) {
                if (guarded < 0) guarded = attacked(b, target, enemy, -1);
                if (guarded) continue;
            }
            Move m = {origin, target, piece, victim, 0, EMPTY};
            if (is_legal(b, context, &m) && push_pawn_or(p, list, &m) < 0) return -1;
        }
    }
    int count = list->count;
    if (count < 2) return 0;
    Capture *sorted = malloc((size_t)count * sizeof(Capture));
    if (!sorted) return PyErr_NoMemory(), fail(p), -1;
    for (int i = 0; i < count; i++) {
        Move *m = &list->moves[i];
        sorted[i].key = abs(p->values[m->piece]) - 16 * (int64_t)abs(p->values[m->captured]);
        sorted[i].letter = p->letters[m->piece];
        sorted[i].promotion = p->letters[m->promotion];
        sorted[i].move = *m;
    }
    qsort(sorted, (size_t)count, sizeof(Capture), compare_capture);
    for (int i = 0; i < count; i++) list->moves[i] = sorted[i].move;
    free(sorted);
    return 0;
}

/* Searcher.counter_key: where the counter-move of a node at `ply` is kept, the slot of the
   move that led there (-1 with counter-moves off, at the root, or after a pass). */
static int64_t counter_slot(const Player *p, int ply) {
    if (!p->counter_moves || ply < 1 || p->passed_at[ply - 1]) return -1;
    return history_slot(p, &p->played[ply - 1]);
}

/* Searcher.counter_move: the quiet move that last cut off after the move that led here
   (NULL when there is no counter-move to keep here, or none cut yet). */
static const Move *counter_move(const Player *p, int ply) {
    int64_t slot = counter_slot(p, ply);
    if (slot < 0) return NULL;
    const Move *counter = &p->counters[slot];
    return counter->piece == EMPTY ? NULL : counter;
}

/* Searcher.ordered_moves: the table's move, captures (best victim, cheapest taker), the
   killers, the counter-move, then quiet moves by their history. */
static int ordered_moves(Player *p, const Context *context, int in_check, const Move *table_move,
                         int ply, MoveList *list) {
    list->count = 0;
    if (in_check) {
        if (evasions(p, context, &p->evasions) < 0) return -1;
        p->captures.count = p->quiet.count = 0;
        for (int i = 0; i < p->evasions.count; i++) {
            Move *m = &p->evasions.moves[i];
            if (append(p, m->captured != EMPTY ? &p->captures : &p->quiet, m) < 0) return -1;
        }
    } else if (pseudo_legal(p) < 0) {
        return -1;
    }
    if (sort_by(p, &p->captures, capture_order, 0) < 0 ||
        sort_by(p, &p->quiet, history_order, 1) < 0)
        return -1;
    for (int i = 0; i < p->captures.count; i++)
        if (append(p, list, &p->captures.moves[i]) < 0) return -1;
    int killers = 0;
    Move chosen[3];
    for (int k = 0; k < p->killer_count[ply]; k++)
        for (int i = 0; i < p->quiet.count; i++)
            if (same_move(&p->quiet.moves[i], &p->killers[ply][k])) {
                chosen[killers++] = p->killers[ply][k];
                if (append(p, list, &p->killers[ply][k]) < 0) return -1;
                break;
            }
    /* The counter-move after the killers, if it is among the quiet moves and no killer. */
    const Move *counter = counter_move(p, ply);
    if (counter) {
        int known = 0;
        for (int k = 0; k < killers; k++) known |= same_move(counter, &chosen[k]);
        for (int i = 0; i < p->quiet.count && !known; i++)
            if (same_move(&p->quiet.moves[i], counter)) {
                chosen[killers++] = *counter;
                if (append(p, list, counter) < 0) return -1;
                break;
            }
    }
    for (int i = 0; i < p->quiet.count; i++) {
        const Move *m = &p->quiet.moves[i];
        int killer = 0;
        for (int k = 0; k < killers; k++) killer |= same_move(m, &chosen[k]);
        if (!killer && append(p, list, m) < 0) return -1;
    }
    if (table_move)
        for (int i = 0; i < list->count; i++)
            if (same_move(&list->moves[i], table_move)) {
                Move first = list->moves[i];
                memmove(&list->moves[1], &list->moves[0], (size_t)i * sizeof(Move));
                list->moves[0] = first;
                break;
            }
    return 0;
}

/* Searcher.remember_cut; with the history malus, the `tried` quiet moves' histories (their
   slots in p->tried[ply]) are lowered by what the cut-off move's is raised. */
static void remember_cut(Player *p, const Move *m, int ply, int depth, int tried) {
    Move *killers = p->killers[ply];
    if (!p->killer_count[ply] || !same_move(&killers[0], m)) {
        killers[1] = killers[0];
        killers[0] = *m;
        if (p->killer_count[ply] < 2) p->killer_count[ply]++;
    }
    p->history[history_slot(p, m)] += (int64_t)depth * depth;
    for (int i = 0; i < tried; i++) p->history[p->tried[ply][i]] -= (int64_t)depth * depth;
    int64_t slot = counter_slot(p, ply);
    if (slot >= 0) p->counters[slot] = *m;
}

/* --- the table ---------------------------------------------------------------------------- */

static inline int to_table(int score, int ply) {
    return score > MATE_THRESHOLD ? score + ply : score < -MATE_THRESHOLD ? score - ply : score;
}

static inline int from_table(int score, int ply) {
    return score > MATE_THRESHOLD ? score - ply : score < -MATE_THRESHOLD ? score + ply : score;
}

static void store(Player *p, int depth, int kind, int score, const Move *move) {
    Entry *e = &p->table[(uint64_t)p->key & p->mask];
    if (!e->used || e->key != p->key || depth >= e->depth) {
        e->key = p->key, e->depth = (int16_t)depth, e->kind = (uint8_t)kind;
        e->score = score, e->used = 1, e->has_move = move != NULL;
        if (move) e->move = *move;
    }
}

/* --- the tree ------------------------------------------------------------------------------- */

static int quiescence(Player *p, int alpha, int beta, int ply, int in_check);

/* Searcher.has_escape: not in check, or some legal move. */
static int has_escape(Player *p) {
    if (!in_check(&p->board, p->board.side)) return 1;
    int found = has_legal_move(&p->board, &p->scratch);
    if (found < 0) fail(p);
    return found;
}

/* alphabeta.py's lmr_reduction: the plies a late move is reduced by. */
static inline int lmr_reduction(const Player *p, int depth, int searched) {
    int reduction = 1;
    if (searched >= p->lmr_second_moves && depth >= p->lmr_second_depth) {
        reduction++;
        if (searched >= p->lmr_third_moves && depth >= p->lmr_third_depth) reduction++;
    }
    return reduction;
}

static int pvs(Player *p, int depth, int alpha, int beta, int ply, int in_check, int passed) {
    if (count_node(p)) return STOPPED;
    p->pv_length[ply] = 0;
    if ((seen(p, p->key) > 1 && p->quiet_plies < FIFTY_MOVE_PLIES) ||
        (p->quiet_plies >= FIFTY_MOVE_PLIES && has_escape(p)))
        return draw_score(p);
    if (p->stopped) return STOPPED;
    if (alpha < -MATE + ply) alpha = -MATE + ply;
    if (beta > MATE - ply - 1) beta = MATE - ply - 1;
    if (alpha >= beta) return alpha;
    if (ply >= MAX_PLY) return evaluate(p);
    if (in_check && ply < 2 * p->root_depth) depth += 1;
    if (depth <= 0) return quiescence(p, alpha, beta, ply, in_check);
    Entry *entry = &p->table[(uint64_t)p->key & p->mask];
    Move table_move;
    int has_table_move = 0;
    if (entry->used && entry->key == p->key) {
        if (entry->has_move) table_move = entry->move, has_table_move = 1;
        if (entry->depth >= depth) {
            int score = from_table(entry->score, ply);
            if (entry->kind == EXACT || (entry->kind == LOWER && score >= beta) ||
                (entry->kind == UPPER && score <= alpha))
                return score;
        }
    }
    /* A null move, as Searcher.pvs. */
    if (p->null_move && !passed && !in_check && depth >= p->null_depth && beta == alpha + 1 &&
        -MATE_THRESHOLD < alpha && beta < MATE_THRESHOLD && has_pieces(p) && evaluate(p) >= beta) {
        int reduction = p->null_reduction + (depth >= p->null_deep);
        p->passed_at[ply] = 1;
        make_null(p);
        int score = -pvs(p, depth - 1 - reduction, -beta, -alpha, ply + 1, 0, 1);
        unmake_null(p);
        if (p->stopped) return STOPPED;
        if (score >= beta) return score < MATE_THRESHOLD ? score : beta;
    }
    int reducing = p->late_move_reductions && depth >= p->lmr_depth && !in_check;
    /* Futility, as Searcher.pvs: what a pruned move counts as (-INFINITY_SCORE: none is). */
    int futility = -INFINITY_SCORE, pruned = 0;
    if (p->futility && depth == 1 && !in_check && beta == alpha + 1 && -MATE_THRESHOLD < alpha &&
        alpha < MATE_THRESHOLD) {
        int hope = evaluate(p);
        if (hope + p->futility_margin <= alpha) futility = hope + p->futility_margin;
    }
    Context context;
    prepare(&p->board, &context);
    /* Out of check as the search knows it (the move that led here checked or not), as
       Python's is_legal then looks at pins alone; only a position the game could not reach
       (its side not to move in check) tells the two apart. */
    if (!in_check) context.in_check = 0;
    MoveList *list = &p->lists[ply];
    if (ordered_moves(p, &context, in_check, has_table_move ? &table_move : NULL, ply, list) < 0)
        return STOPPED;
    int original_alpha = alpha, best_score = -INFINITY_SCORE, searched = 0, tried = 0;
    if (p->history_malus && p->tried_capacity[ply] < list->count) {
        int64_t *grown = realloc(p->tried[ply], (size_t)list->count * sizeof(int64_t));
        if (!grown) return PyErr_NoMemory(), fail(p), STOPPED;
        p->tried[ply] = grown, p->tried_capacity[ply] = list->count;
    }
    Move best_move;
    int has_best = 0;
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        if (!in_check && !is_legal(&p->board, &context, &m)) continue;
        int check = gives_check(&p->board, &context, &m);
        if (futility > -INFINITY_SCORE && searched && !check && m.captured == EMPTY &&
            m.promotion == EMPTY) {
            pruned = 1;
            continue;
        }
        p->played[ply] = m, p->passed_at[ply] = 0;
        make(p, &m);
        int score;
        if (searched == 0) {
            score = -pvs(p, depth - 1, -beta, -alpha, ply + 1, check, 0);
        } else {
            /* A late-move reduction, as Searcher.pvs: never of a killer. */
            int reduction = 0;
            if (reducing && searched >= p->lmr_moves && !check && m.captured == EMPTY &&
                m.promotion == EMPTY) {
                int killer = 0;
                for (int k = 0; k < p->killer_count[ply]; k++)
                    killer |= same_move(&m, &p->killers[ply][k]);
                if (!killer) reduction = lmr_reduction(p, depth, searched);
            }
            score = -pvs(p, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, check, 0);
            if (reduction && !p->stopped && score > alpha)
                score = -pvs(p, depth - 1, -alpha - 1, -alpha, ply + 1, check, 0);
            if (!p->stopped && alpha < score && score < beta)
                score = -pvs(p, depth - 1, -beta, -alpha, ply + 1, check, 0);
        }
        unmake(p, &m);
        if (p->stopped) return STOPPED;
        searched++;
        if (score > best_score) {
            best_score = score, best_move = m, has_best = 1;
            if (score > alpha) {
                alpha = score;
                p->pv[ply][0] = m;
                memcpy(&p->pv[ply][1], p->pv[ply + 1],
                       (size_t)p->pv_length[ply + 1] * sizeof(Move));
                p->pv_length[ply] = p->pv_length[ply + 1] + 1;
                if (score >= beta) {
                    if (m.captured == EMPTY) remember_cut(p, &m, ply, depth, tried);
                    break;
                }
            }
        }
        if (p->history_malus && m.captured == EMPTY) p->tried[ply][tried++] = history_slot(p, &m);
    }
    if (searched == 0) return in_check ? -MATE + ply : draw_score(p);
    if (pruned && best_score < futility) best_score = futility;
    int kind = original_alpha < best_score && best_score < beta ? EXACT
               : best_score >= beta                             ? LOWER
                                                                : UPPER;
    store(p, depth, kind, to_table(best_score, ply), has_best ? &best_move : NULL);
    return best_score;
}

static int quiescence(Player *p, int alpha, int beta, int ply, int in_check) {
    if (ply >= MAX_PLY) return evaluate(p);
    Context context;
    MoveList *list = &p->lists[ply];
    int best_score;
    if (in_check) {
        if (ply > p->root_depth + 1) {
            int found = has_legal_move(&p->board, &p->scratch);
            if (found < 0) return fail(p), STOPPED;
            return found ? evaluate(p) : -MATE + ply;
        }
        best_score = -MATE + ply;
        prepare(&p->board, &context);
        if (evasions(p, &context, list) < 0) return STOPPED;
    } else {
        best_score = evaluate(p);
        if (best_score >= beta || ply >= p->root_depth + QUIESCENCE_PLIES) return best_score;
        if (best_score > alpha) alpha = best_score;
        /* Looked at only now: most nodes here end on the score as it stands. */
        prepare(&p->board, &context);
        context.in_check = 0; /* as in pvs */
        if (captures(p, &context, list, alpha - best_score) < 0) return STOPPED;
    }
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        int check = gives_check(&p->board, &context, &m);
        make(p, &m);
        int score = count_node(p) ? STOPPED : -quiescence(p, -beta, -alpha, ply + 1, check);
        unmake(p, &m);
        if (p->stopped) return STOPPED;
        if (score > best_score) {
            best_score = score;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) break;
            }
        }
    }
    return best_score;
}

/* --- the Python type ---------------------------------------------------------------------- */

static PyObject *move_tuple(const Move *m) {
    return Py_BuildValue("(iiiii)", m->piece, m->origin, m->target, m->captured, m->promotion);
}

static int read_move(PyObject *item, Move *m) {
    int piece, origin, target, captured, promotion;
    if (!PyArg_ParseTuple(item, "iiiii", &piece, &origin, &target, &captured, &promotion))
        return -1;
    m->piece = (uint8_t)piece, m->origin = origin, m->target = target;
    m->captured = (uint8_t)captured, m->kind = 0, m->promotion = (uint8_t)promotion;
    return 0;
}

/* Read a sequence of exactly `count` numbers of a kind into `out`. */
static int read_numbers(PyObject *sequence, int count, const char *what, double *doubles,
                        long long *integers) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %d numbers expected", what, count);
        Py_DECREF(fast);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (doubles) doubles[i] = PyFloat_AsDouble(item);
        if (integers) integers[i] = PyLong_AsLongLong(item);
        if (PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static void player_dealloc(Player *self) {
    free_board(&self->board);
    for (int k = 0; k < KINDS; k++) free(self->worth[k]), free(self->worth_known[k]);
    free(self->advance), free(self->passed), free(self->pawns[0]), free(self->pawns[1]);
    free(self->pawn_keys), free(self->pawn_terms);
    if (self->borrowed)
        PyBuffer_Release(&self->lent);
    else
        free(self->table);
    free(self->game_keys), free(self->game_counts), free(self->history), free(self->counters);
    for (int i = 0; i < MAX_PLY + 2; i++) free_moves(&self->lists[i]), free(self->tried[i]);
    free_moves(&self->captures), free_moves(&self->quiet), free_moves(&self->evasions);
    free_moves(&self->scratch);
    free(self->found), free(self->sort_keys);
    Py_XDECREF(self->poll);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Read n^3 numbers, one a cell at x + n (y + n z), into a new array (a pawn's bonuses). */
static int32_t *read_cell_numbers(PyObject *sequence, int size, const char *what) {
    size_t cells = (size_t)size * size * size;
    int32_t *numbers = calloc(cells, sizeof(int32_t));
    long long *read = malloc(cells * sizeof(long long));
    if (!numbers || !read) {
        free(numbers), free(read);
        return PyErr_NoMemory(), NULL;
    }
    if (read_numbers(sequence, (int)cells, what, NULL, read) < 0) {
        free(numbers), free(read);
        return NULL;
    }
    for (size_t i = 0; i < cells; i++) numbers[i] = (int32_t)read[i];
    free(read);
    return numbers;
}

/* PlayerCore(size, slots, pieces, side, key, black_to_move, salts, letters, values, average,
   weights, steps, game, quiet_plies, limits, poll, rules=None, advance=(), passed=(),
   pruning=None, table=None): see kernel/_core.pyi. */
static int player_init(Player *self, PyObject *args, PyObject *kwargs) {
    int size, side, quiet_plies;
    long long slots, key, black_to_move;
    PyObject *pieces, *salts, *letters, *values, *average, *weights, *steps, *game, *limits, *poll;
    PyObject *rules = Py_None, *advance = NULL, *passed = NULL, *pruning = NULL;
    PyObject *table = Py_None;
    static char *names[] = {"size",    "slots",   "pieces", "side",    "key",
                            "black_to_move",      "salts",  "letters", "values",
                            "average", "weights", "steps",  "game",    "quiet_plies",
                            "limits",  "poll",    "rules",  "advance", "passed",
                            "pruning", "table",   NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iLO!iLLOUOOOOO!iOO|OOOOO", names, &size,
                                     &slots, &PyList_Type, &pieces, &side, &key, &black_to_move,
                                     &salts, &letters, &values, &average, &weights, &steps,
                                     &PyDict_Type, &game, &quiet_plies, &limits, &poll, &rules,
                                     &advance, &passed, &pruning, &table))
        return -1;
    if (self->board.size) {
        PyErr_SetString(PyExc_RuntimeError, "a PlayerCore is set up once");
        return -1;
    }
    if (size < 2 || size > LARGEST_SIZE || side < 0 || side > 1 || slots < 1 ||
        (slots & (slots - 1)) || slots > ((long long)1 << 32) || quiet_plies < 0 ||
        !PyCallable_Check(poll) || PyUnicode_GetLength(letters) != 16) {
        PyErr_SetString(PyExc_ValueError,
                        "size, side, slots (a power of two), quiet_plies, poll or letters out "
                        "of range");
        return -1;
    }
    long long numbers[16];
    double reals[16];
    if (read_numbers(salts, 16, "salts", NULL, numbers) < 0) return -1;
    for (int i = 0; i < 16; i++) self->salts[i] = numbers[i];
    for (int i = 0; i < 16; i++) {
        Py_UCS4 c = PyUnicode_ReadChar(letters, i);
        self->letters[i] = c < 128 ? (char)c : '?';
    }
    if (read_numbers(values, 16, "values", NULL, numbers) < 0) return -1;
    for (int i = 0; i < 16; i++) self->values[i] = (int)numbers[i];
    if (read_numbers(average, KINDS, "average", reals, NULL) < 0) return -1;
    for (int i = 0; i < KINDS; i++) self->average[i] = reals[i];
    /* weights: blocking, placement, exposure, king_reach, cornering, start_material,
       ray_limit, drawish, mating_pieces, draw */
    if (read_numbers(weights, 10, "weights", reals, NULL) < 0) return -1;
    self->blocking = reals[0], self->placement = reals[1], self->exposure = reals[2];
    self->king_reach = reals[3], self->cornering = (int)reals[4];
    self->start_material = (int)reals[5], self->ray_limit = (int)reals[6];
    self->drawish = (int)reals[7], self->mating_pieces = (int)reals[8];
    self->draw = (int)reals[9];
    if (self->start_material < 1 || self->ray_limit < 1 || self->drawish < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "start_material, ray_limit and drawish must be 1 or more");
        return -1;
    }
    double limit_values[3];
    if (read_numbers(limits, 3, "limits", limit_values, NULL) < 0) return -1;
    /* pruning: alphabeta.py's pruning_numbers (the switches of null move, late-move
       reductions and futility, the futility margin, then the null move's and the reductions'
       depths and counts, then the switches of counter-moves and the history malus); none
       given: all off. */
    if (pruning && pruning != Py_None) {
        long long n[15];
        if (read_numbers(pruning, 15, "pruning", NULL, n) < 0) return -1;
        for (int i = 4; i < 13; i++)
            if (n[i] < 0 || n[i] > MAX_PLY) {
                PyErr_SetString(PyExc_ValueError, "pruning: numbers out of range");
                return -1;
            }
        if (n[3] < 0 || n[3] > MATE_THRESHOLD) {
            PyErr_SetString(PyExc_ValueError, "pruning: the futility margin out of range");
            return -1;
        }
        self->null_move = n[0] != 0, self->late_move_reductions = n[1] != 0;
        self->futility = n[2] != 0, self->futility_margin = (int)n[3];
        self->null_depth = (int)n[4], self->null_reduction = (int)n[5];
        self->null_deep = (int)n[6], self->lmr_depth = (int)n[7], self->lmr_moves = (int)n[8];
        self->lmr_second_moves = (int)n[9], self->lmr_second_depth = (int)n[10];
        self->lmr_third_moves = (int)n[11], self->lmr_third_depth = (int)n[12];
        self->counter_moves = n[13] != 0, self->history_malus = n[14] != 0;
    }
    if (set_size(&self->board, size) < 0 || set_rules(&self->board, rules) < 0) return -1;
    Board *b = &self->board;
    self->kinds = b->push_count ? PAWN : KNIGHT;
    /* A white pawn's advance bonus by cell, n^3 numbers (none without pawns), and its passed
       bonus (none: no passed-pawn term). */
    if (b->push_count) {
        if (!advance) {
            PyErr_SetString(PyExc_ValueError, "advance: a bonus per cell with pawns");
            return -1;
        }
        self->advance = read_cell_numbers(advance, size, "advance");
        if (!self->advance) return -1;
        Py_ssize_t given = passed ? PyObject_Length(passed) : 0;
        if (given < 0) return -1;
        if (given) {
            size_t cells = (size_t)size * size * size;
            self->passed = read_cell_numbers(passed, size, "passed");
            self->pawns[0] = malloc(4 * cells * sizeof(int));
            self->pawns[1] = malloc(4 * cells * sizeof(int));
            self->pawn_keys = calloc(PAWN_SLOTS, sizeof(int64_t));
            self->pawn_terms = calloc(PAWN_SLOTS, sizeof(int32_t));
            if (!self->passed) return -1;
            if (!self->pawns[0] || !self->pawns[1] || !self->pawn_keys || !self->pawn_terms)
                return PyErr_NoMemory(), -1;
        }
    }
    /* steps: for each kind 1 ... 7, (slides, [(dx, dy, dz), ...]) in Python's order (a
       pawn's: its captures, which the evaluation counts; its moves are the rules'). */
    PyObject *fast = PySequence_Fast(steps, "steps");
    if (!fast) return -1;
    int bad = PySequence_Fast_GET_SIZE(fast) != KINDS;
    for (int kind = KING; !bad && kind < KINDS; kind++) {
        PyObject *slides, *list;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, kind), "OO!", &slides, &PyList_Type,
                              &list)) {
            Py_DECREF(fast);
            return -1;
        }
        self->slides[kind] = PyObject_IsTrue(slides);
        Py_ssize_t count = PyList_GET_SIZE(list);
        if (count > 26) {
            bad = 1;
            break;
        }
        self->step_count[kind] = (int)count;
        for (Py_ssize_t s = 0; s < count; s++) {
            int dx, dy, dz;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(list, s), "iii", &dx, &dy, &dz)) {
                Py_DECREF(fast);
                return -1;
            }
            if (abs(dx) > 2 || abs(dy) > 2 || abs(dz) > 2) bad = 1;
            self->step_xyz[kind][s][0] = (int8_t)dx, self->step_xyz[kind][s][1] = (int8_t)dy;
            self->step_xyz[kind][s][2] = (int8_t)dz;
            self->steps[kind][s] = dx + b->width * (dy + b->width * dz);
        }
    }
    Py_DECREF(fast);
    if (bad || self->step_count[KING] != 26) {
        PyErr_SetString(PyExc_ValueError, "steps: eight kinds, the king's 26, each step within 2");
        return -1;
    }
    if (set_pieces(b, pieces, side) < 0) return -1;
    int64_t computed = side ? black_to_move : 0;
    self->black_to_move = black_to_move;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < b->counts[s]; i++) {
            int cell = b->pieces[s][i];
            computed ^= piece_key(self, cell, b->cells[cell]);
        }
    if (computed != key) {
        PyErr_SetString(PyExc_ValueError, "the position's key differs from the one computed here");
        return -1;
    }
    self->key = key;
    self->path[MAX_PLY + 3] = key;
    self->pawn_key = 0;
    for (int s = 0; self->passed && s < 2; s++)
        for (int i = 0; i < b->counts[s]; i++) {
            int cell = b->pieces[s][i];
            if (KIND_OF(b->cells[cell]) == PAWN)
                self->pawn_key ^= piece_key(self, cell, b->cells[cell]);
        } /* the root's key, put back when the path is empty */
    /* The game's positions, in an open-addressed table at most half full. */
    Py_ssize_t count = PyDict_Size(game);
    uint64_t capacity = 16;
    while (capacity < 2 * (uint64_t)count + 2) capacity *= 2;
    self->game_keys = calloc(capacity, sizeof(int64_t));
    self->game_counts = calloc(capacity, sizeof(int32_t));
    self->game_mask = capacity - 1;
    size_t cells = (size_t)b->area;
    self->history = calloc(2 * (size_t)self->kinds * cells, sizeof(int64_t));
    self->counters = calloc(2 * (size_t)self->kinds * cells, sizeof(Move));
    if (table == Py_None) {
        self->table = calloc((size_t)slots, sizeof(Entry));
    } else {
        /* A kept table: writable bytes, slots entries long, zeroed when first made (an
           entry of all zeros is unused), whatever earlier searches left in it after. */
        if (PyObject_GetBuffer(table, &self->lent, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        self->borrowed = 1;
        if (self->lent.len != (Py_ssize_t)((size_t)slots * sizeof(Entry))) {
            PyErr_Format(PyExc_ValueError, "table: %zd bytes, not %lld slots of %zu bytes",
                         self->lent.len, slots, sizeof(Entry));
            return -1;
        }
        self->table = self->lent.buf;
    }
    self->mask = (uint64_t)slots - 1;
    self->found = malloc((size_t)size * size * size * sizeof(int));
    for (int k = 0; k < KINDS; k++) {
        self->worth[k] = malloc(cells * sizeof(int32_t));
        self->worth_known[k] = calloc(cells, 1);
        if (!self->worth[k] || !self->worth_known[k]) bad = 1;
    }
    if (bad || !self->game_keys || !self->game_counts || !self->history || !self->counters ||
        !self->table || !self->found) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *item_key, *item_count;
    Py_ssize_t position = 0;
    while (PyDict_Next(game, &position, &item_key, &item_count)) {
        long long k = PyLong_AsLongLong(item_key), c = PyLong_AsLongLong(item_count);
        if (PyErr_Occurred()) return -1;
        if (c < 1 || c > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "game: counts must be 1 or more");
            return -1;
        }
        uint64_t i = (uint64_t)k & self->game_mask;
        while (self->game_counts[i] && self->game_keys[i] != k) i = (i + 1) & self->game_mask;
        self->game_keys[i] = k, self->game_counts[i] = (int32_t)c;
    }
    self->quiet_plies = quiet_plies;
    self->material = 0;
    self->army[0] = self->army[1] = 0;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < b->counts[s]; i++) {
            int cell = b->pieces[s][i];
            self->material += worth(self, b->cells[cell], cell);
            self->army[s] += self->values[b->cells[cell]];
        }
    self->army[0] = abs(self->army[0]), self->army[1] = abs(self->army[1]);
    /* limits: the deadline (monotonic seconds, or -1), the clock's start, the node limit. */
    self->deadline = limit_values[0], self->last_clock = limit_values[1];
    self->node_limit = (long long)limit_values[2];
    self->last_poll = now();
    self->next_poll = 0; /* at the first look at the clock: a stop asked already ends it */
    Py_INCREF(poll);
    self->poll = poll;
    return 0;
}

/* root(depth, moves, alpha=-INFINITY, beta=INFINITY) -> (score, best, pv, stopped):
   Searcher.root over the moves given, within (alpha, beta). */
static PyObject *player_root(Player *self, PyObject *args) {
    int depth, alpha = -INFINITY_SCORE, beta = INFINITY_SCORE;
    PyObject *moves;
    if (!PyArg_ParseTuple(args, "iO!|ii", &depth, &PyList_Type, &moves, &alpha, &beta))
        return NULL;
    if (alpha < -INFINITY_SCORE || beta > INFINITY_SCORE || alpha >= beta) {
        PyErr_SetString(PyExc_ValueError, "alpha and beta out of range");
        return NULL;
    }
    if (!self->poll) {
        PyErr_SetString(PyExc_RuntimeError, "PlayerCore was not set up");
        return NULL;
    }
    if (depth < 1 || depth > MAX_PLY) {
        PyErr_SetString(PyExc_ValueError, "depth out of range");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this PlayerCore is already searching");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(moves);
    MoveList given = {0};
    for (Py_ssize_t i = 0; i < count; i++) {
        Move m;
        if (read_move(PyList_GET_ITEM(moves, i), &m) < 0) return free_moves(&given), NULL;
        if (add_promotion(&given, m.origin, m.target, m.piece, m.captured, m.promotion) < 0)
            return free_moves(&given), NULL;
    }
    self->busy = 1, self->stopped = self->failed = 0;
    Board *b = &self->board;
    Context context;
    prepare(b, &context);
    int best = 0;
    self->pv_length[0] = 0;
    self->root_depth = depth;
    for (int index = 0; index < given.count && !self->stopped; index++) {
        Move m = given.moves[index];
        int check = gives_check(b, &context, &m);
        self->played[0] = m, self->passed_at[0] = 0;
        make(self, &m);
        int score;
        if (index == 0) {
            score = -pvs(self, depth - 1, -beta, -alpha, 1, check, 0);
        } else {
            score = -pvs(self, depth - 1, -alpha - 1, -alpha, 1, check, 0);
            if (!self->stopped && alpha < score && score < beta)
                score = -pvs(self, depth - 1, -beta, -alpha, 1, check, 0);
        }
        unmake(self, &m);
        if (self->stopped) break;
        if (score > alpha) {
            alpha = score, best = index;
            self->pv[0][0] = m;
            memcpy(&self->pv[0][1], self->pv[1], (size_t)self->pv_length[1] * sizeof(Move));
            self->pv_length[0] = self->pv_length[1] + 1;
            if (score >= beta) break;
        }
    }
    free_moves(&given);
    self->busy = 0;
    if (self->failed) return NULL;
    PyObject *pv = PyList_New(self->pv_length[0]);
    if (!pv) return NULL;
    for (int i = 0; i < self->pv_length[0]; i++) {
        PyObject *move = move_tuple(&self->pv[0][i]);
        if (!move) return Py_DECREF(pv), NULL;
        PyList_SET_ITEM(pv, i, move);
    }
    return Py_BuildValue("(iiNO)", alpha, best, pv, self->stopped ? Py_True : Py_False);
}

static PyObject *player_evaluate(Player *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->poll) {
        PyErr_SetString(PyExc_RuntimeError, "PlayerCore was not set up");
        return NULL;
    }
    return PyLong_FromLong(evaluate(self));
}

static PyMethodDef player_methods[] = {
    {"root", (PyCFunction)player_root, METH_VARARGS,
     "root(depth, moves, alpha=-INFINITY, beta=INFINITY) -> (score, best, pv, stopped)\n\n"
     "Search each root move to `depth` within (alpha, beta) as Searcher.root does (a move\n"
     "at or above beta ends it); return the best score (alpha if none beat it), the\n"
     "index of the best move, the principal variation and whether a limit stopped it.\n"
     "Moves are (piece code, origin, target, captured code, promotion code) tuples."},
    {"evaluate", (PyCFunction)player_evaluate, METH_NOARGS,
     "evaluate() -> int: the evaluation of the position set up, for the side to move."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef player_members[] = {
    {"nodes", T_ULONGLONG, offsetof(Player, nodes), READONLY, "Positions counted so far."},
    {"material", T_INT, offsetof(Player, material), READONLY,
     "The material-and-placement sum, white's positive."},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject PlayerCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kernel._core.PlayerCore",
    .tp_doc = "kernel/play/alphabeta.py's search of one position, compiled (kernel/_core.pyi).",
    .tp_basicsize = sizeof(Player),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)player_init,
    .tp_dealloc = (destructor)player_dealloc,
    .tp_methods = player_methods,
    .tp_members = player_members,
};
