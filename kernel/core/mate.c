/* The proof-number search of kernel/mates/proofnumber.py, compiled: the same df-pn, in C.

   kernel/mates/proofnumber.py is the search the engine is written in and the one to read first;
   this module runs the same algorithm 20 to 30 times faster (bench/mate.py), and
   ProofNumberSearch uses it when it was built (`pip install` builds it where a C compiler is
   found; otherwise the Python search runs). tests/test_proofcore.py holds its answers to
   the Python search's, which the tests hold to the AND/OR search and to the brute force.

   The same as in Python: a node is a position and the number of the attacker's moves left;
   an attacker's node is an OR node, a defender's an AND node; the thresholds and the
   1 + epsilon widening; the first numbers of a position never seen, guessed from its depth
   (a defence that checks starts with a disproof number of 1); the table's entries, which
   keep the least depth a position is proved at, the greatest it is disproved at, and the
   numbers of one unsettled depth; a mate in one looked for once at every attacker's node;
   checks first, captures next; the defence that last refuted tried first, by depth; the last
   move searched exactly (only checks, each played to see whether any defence is left); and
   what is counted against the budget: the moves of each node generated, and for a mate in
   one the pieces asked and the checks played.

   Different, because C can afford it or needs it:
   - the search recurses (at most twice the 100 moves of the longest mate asked for);
   - the board is board.c's (pieces in arrays, attacks and legality read off lines: it says
     how), and a captured piece's place in its side's array is taken by the last one;
   - the table starts at 4,096 entries and doubles, up to its bound, when three quarters
     full (a small search then touches little memory: a page's first touch costs about a
     microsecond), in buckets of four where a new entry takes the place of the one that cost
     least work (the small-tree replacement, bucket by bucket, instead of dropping half the
     table at once); the keys are its own.

   The position comes from Python as a list of pieces (cell << 4 | code, the codes below) and
   the side to move; the board of a size is kept between calls, so a call costs its pieces,
   not the n^3 cells. Every SPEND_EVERY positions counted are handed to the budget's `spend`,
   which raises past the limit or when the command is asked to stop (where a signal's
   handler also gets its turn): the search then unwinds, and the exception reaches the
   caller. */

#include "core.h"

/* As in kernel/mates/proofnumber.py. */
#define INFINITE ((uint64_t)1 << 32)
#define LARGEST (INFINITE - 1)
#define MAX_MATE_MOVES 100
#define NO_DEPTH (MAX_MATE_MOVES + 1)
#define ATTACKER_MOVES 30
#define DEFENCES 3
#define LARGEST_GUESS ((uint64_t)1 << 24)
/* Entries of one bucket of the table. */
#define BUCKET 4
enum { CHECK = 0, CAPTURE = 1, QUIET = 2, ILLEGAL = 3 };

/* One table entry: proved at `proved` moves and more, disproved below `disproved`, and the
   numbers of depth `known` - 1 (0: none kept). */
typedef struct {
    uint64_t key;
    uint64_t pn, dn;
    uint64_t work;
    uint8_t proved, disproved, known, used;
} Entry;

typedef struct {
    PyObject_HEAD
    /* The board of the size last asked about, and its key (the search's own). */
    Board board;
    uint64_t key;
    /* The table. */
    Entry *table;
    uint64_t buckets;
    uint64_t most_buckets;     /* the bound the table grows to */
    unsigned long long filled; /* entries in use */
    unsigned long long most_entries;
    /* The killers: the defence that last refuted, by depth. */
    Move killers[MAX_MATE_MOVES + 2];
    uint8_t has_killer[MAX_MATE_MOVES + 2];
    /* One move list per ply of the path. */
    MoveList lists[2 * MAX_MATE_MOVES + 4];
    /* The positions counted in this call, and the budget's `spend`. */
    Spending spending;
    /* A search is running: `spend` must not start another on the same core. */
    int busy;
} Core;

/* --- the position ------------------------------------------------------------------- */

static inline int play(Core *core, const Move *m) {
    core->key = key_after(core->key, m);
    return board_play(&core->board, m);
}

static inline void undo(Core *core, const Move *m, int place) {
    board_undo(&core->board, m, place);
    core->key = key_after(core->key, m); /* the same XORs take the key back */
}

static inline int spend(Core *core, uint64_t count) {
    return spending_add(&core->spending, count);
}

/* --- the table ------------------------------------------------------------------------- */

static inline void guess(int attacker, int depth, uint64_t *pn, uint64_t *dn) {
    uint64_t proof = 1, disproof = 1;
    for (int i = 0; i < (attacker ? depth - 1 : depth) && proof < LARGEST_GUESS; i++)
        proof *= DEFENCES;
    for (int i = 0; i < depth - 1 && disproof < LARGEST_GUESS; i++) disproof *= ATTACKER_MOVES;
    *pn = proof < LARGEST_GUESS ? proof : LARGEST_GUESS;
    *dn = disproof < LARGEST_GUESS ? disproof : LARGEST_GUESS;
}

static inline Entry *find(Core *core, uint64_t key) {
    Entry *bucket = &core->table[(key % core->buckets) * BUCKET];
    for (int i = 0; i < BUCKET; i++)
        if (bucket[i].used && bucket[i].key == key) return &bucket[i];
    return NULL;
}

/* The numbers of a position at a depth; return 1 when the table knew nothing of them. */
static inline int lookup(Core *core, uint64_t key, int depth, int attacker, uint64_t *pn,
                         uint64_t *dn) {
    Entry *e = find(core, key);
    if (e) {
        if (depth >= e->proved) {
            *pn = 0, *dn = INFINITE;
            return 0;
        }
        if (depth < e->disproved) {
            *pn = INFINITE, *dn = 0;
            return 0;
        }
        if (depth + 1 == e->known) {
            *pn = e->pn, *dn = e->dn;
            return 0;
        }
    }
    guess(attacker, depth, pn, dn);
    return 1;
}

/* Double the table while it is under its bound and three quarters full: a small search
   touches a small table (a fresh page of memory costs about a microsecond, the first time),
   a large one gets the whole bound. */
static void grow(Core *core) {
    uint64_t buckets =
        core->buckets * 2 < core->most_buckets ? core->buckets * 2 : core->most_buckets;
    Entry *table = calloc((size_t)(buckets * BUCKET), sizeof(Entry));
    if (!table) return; /* stay at the present size: entries are replaced sooner, that is all */
    Entry *old = core->table;
    core->filled = 0;
    for (uint64_t i = 0; i < core->buckets * BUCKET; i++) {
        if (!old[i].used) continue;
        Entry *bucket = &table[(old[i].key % buckets) * BUCKET];
        for (int j = 0; j < BUCKET; j++)
            if (!bucket[j].used) {
                bucket[j] = old[i];
                core->filled++;
                break;
            }
    }
    free(old);
    core->table = table, core->buckets = buckets;
}

static void store(Core *core, uint64_t key, int depth, uint64_t pn, uint64_t dn, uint64_t work) {
    Entry *e = find(core, key);
    if (!e && core->buckets < core->most_buckets && core->filled * 4 >= core->buckets * BUCKET * 3)
        grow(core);
    if (!e) {
        Entry *bucket = &core->table[(key % core->buckets) * BUCKET];
        e = &bucket[0];
        for (int i = 0; i < BUCKET; i++) {
            if (!bucket[i].used) {
                e = &bucket[i];
                break;
            }
            if (bucket[i].work < e->work) e = &bucket[i];
        }
        core->filled += !e->used;
        e->key = key, e->used = 1, e->work = 0;
        e->proved = NO_DEPTH, e->disproved = 0, e->known = 0;
    }
    if (pn == 0) {
        if (depth < e->proved) e->proved = (uint8_t)depth;
    } else if (dn == 0) {
        if (depth + 1 > e->disproved) e->disproved = (uint8_t)(depth + 1);
    } else {
        e->known = (uint8_t)(depth + 1), e->pn = pn, e->dn = dn;
    }
    e->work += work;
}

static inline void settle(Core *core, uint64_t key, int depth, int proved, uint64_t work,
                          uint64_t *pn, uint64_t *dn) {
    *pn = proved ? 0 : INFINITE;
    *dn = proved ? INFINITE : 0;
    store(core, key, depth, *pn, *dn, work);
}

/* --- the last moves, exactly ----------------------------------------------------------- */

/* Tell whether the side to move mates in one (board.c's mate_in_one); the count spent is
   the pieces asked and the checks played, as in Python. */
static int mates_in_one(Core *core, int ply) {
    int asked = 0, side = core->board.side;
    int found = mate_in_one(&core->board, &core->lists[ply + 1], &asked);
    if (found < 0) return -1;
    if (spend(core, (uint64_t)(core->board.counts[side] + asked)) < 0) return -1;
    return found;
}

static int settled_mates_in_one(Core *core, int ply) {
    uint64_t key = core->key, started = core->spending.nodes, pn, dn;
    int mates = mates_in_one(core, ply);
    if (mates >= 0) settle(core, key, 1, mates, core->spending.nodes - started + 1, &pn, &dn);
    return mates;
}

/* Ask one defence of every_defence_mated_in_one: 1 when the attacker mates in one after
   it (the table asked first), 0 when not, -1 on an error. */
static int mated_after(Core *core, int ply, const Move *m) {
    if (spend(core, 1) < 0) return -1;
    uint64_t key = key_after(core->key, m), pn, dn;
    if (!lookup(core, key, 1, 1, &pn, &dn) && (pn == 0 || dn == 0)) return pn == 0;
    int place = play(core, m);
    int mated = settled_mates_in_one(core, ply + 1);
    undo(core, m, place);
    return mated;
}

/* Tell whether the defender, to move with the attacker's last move left, has a move and
   loses after every one. The king's step that refuted last is asked first, then the other
   steps, then the other pieces' moves, each piece's generated only when reached: most
   questions end at the first step. */
static int every_defence_mated_in_one(Core *core, int ply) {
    MoveList *list = &core->lists[ply];
    Context context;
    prepare(&core->board, &context);
    int side = core->board.side, king = context.king, defended = 0, mated;
    int killer = -1; /* the target of the remembered step, when it is one here */
    if (king >= 0 && core->has_killer[1] && core->killers[1].origin == king) {
        int d = core->board.rays[between(&core->board, king, core->killers[1].target)] - 1;
        killer = core->killers[1].target;
        if (d >= 0 && king + core->board.steps[d] == killer &&
            king_step_lands(&core->board, killer, side) &&
            !attacked(&core->board, killer, 1 - side, king)) {
            Move m = {king, killer, core->board.cells[king], core->board.cells[killer], QUIET,
                      EMPTY};
            defended = 1;
            if ((mated = mated_after(core, ply, &m)) <= 0) return mated < 0 ? -1 : 0;
        } else {
            killer = -1;
        }
    }
    if (king >= 0)
        for (int d = 0; d < 26; d++) {
            int target = king + core->board.steps[d];
            if (target == killer || !king_step_lands(&core->board, target, side)) continue;
            if (attacked(&core->board, target, 1 - side, king)) continue;
            Move m = {king, target, core->board.cells[king], core->board.cells[target], QUIET,
                      EMPTY};
            defended = 1;
            if ((mated = mated_after(core, ply, &m)) <= 0) {
                if (mated == 0) core->killers[1] = m, core->has_killer[1] = 1;
                return mated < 0 ? -1 : 0;
            }
        }
    if (!(king >= 0 && context.in_check > 1))
        for (int i = 0; i < core->board.counts[side]; i++) {
            int origin = core->board.pieces[side][i];
            if (origin == king) continue;
            list->count = 0;
            if (piece_moves(&core->board, origin, list) < 0) return -1;
            for (int j = 0; j < list->count; j++) {
                Move m = list->moves[j];
                if (!is_legal(&core->board, &context, &m)) continue;
                defended = 1;
                if ((mated = mated_after(core, ply, &m)) <= 0) {
                    if (mated == 0) core->killers[1] = m, core->has_killer[1] = 1;
                    return mated < 0 ? -1 : 0;
                }
            }
        }
    return defended ? 1 : context.in_check != 0;
}

/* --- df-pn ----------------------------------------------------------------------------- */

/* Keep the legal moves of lists[ply], each with its kind, in the order of `order` (kinds
   first to last); lists[ply + 1] is free at this point and holds the copy. */
static int classify(Core *core, int ply, const uint8_t *order, int kinds) {
    MoveList *list = &core->lists[ply], *scratch = &core->lists[ply + 1];
    if (reserve(scratch, list->count) < 0) return -1;
    Context context;
    prepare(&core->board, &context);
    Move *moves = list->moves;
    for (int i = 0; i < list->count; i++) {
        Move *m = &moves[i];
        m->kind = !is_legal(&core->board, &context, m)     ? ILLEGAL
                  : gives_check(&core->board, &context, m) ? CHECK
                  : m->captured != EMPTY                   ? CAPTURE
                                                           : QUIET;
    }
    int kept = 0;
    for (int k = 0; k < kinds; k++)
        for (int i = 0; i < list->count; i++)
            if (moves[i].kind == order[k]) scratch->moves[kept++] = moves[i];
    if (kept) memcpy(moves, scratch->moves, (size_t)kept * sizeof(Move)); /* none: maybe NULL */
    list->count = kept;
    return 0;
}

/* The attacker's moves worth trying: checks first, captures next, the rest last; with one
   move left, only checks. */
static int attacking_moves(Core *core, int ply, int depth) {
    static const uint8_t order[] = {CHECK, CAPTURE, QUIET};
    if (pseudo_moves(&core->board, &core->lists[ply]) < 0) return -1;
    return classify(core, ply, order, depth == 1 ? 1 : 3);
}

/* The defender's legal moves, the killer of this depth first. */
static int defending_moves(Core *core, int ply, int depth) {
    static const uint8_t order[] = {CHECK, CAPTURE, QUIET};
    MoveList *list = &core->lists[ply];
    if (pseudo_moves(&core->board, list) < 0 || classify(core, ply, order, 3) < 0) return -1;
    if (core->has_killer[depth]) {
        const Move *killer = &core->killers[depth];
        for (int i = 0; i < list->count; i++) {
            Move *m = &list->moves[i];
            if (m->origin == killer->origin && m->target == killer->target &&
                m->piece == killer->piece && m->promotion == killer->promotion) {
                Move found = *m;
                memmove(&list->moves[1], &list->moves[0], (size_t)i * sizeof(Move));
                list->moves[0] = found;
                break;
            }
        }
    }
    return 0;
}

/* Search a node under its thresholds (df-pn's MID); its numbers go to out_pn and out_dn.
   Return -1 with a Python exception set when the budget or the memory ran out. */
static int mid(Core *core, int ply, int depth, int attacker, uint64_t proof_limit,
               uint64_t disproof_limit, uint64_t *out_pn, uint64_t *out_dn) {
    uint64_t key = core->key, pn, dn;
    lookup(core, key, depth, attacker, &pn, &dn);
    if (pn >= proof_limit || dn >= disproof_limit) {
        *out_pn = pn, *out_dn = dn;
        return 0;
    }
    if (ply + 4 >= (int)(sizeof core->lists / sizeof core->lists[0])) {
        PyErr_SetString(PyExc_RecursionError, "mate search deeper than its path allows");
        return -1;
    }
    uint64_t started = core->spending.nodes;
    if (depth <= 1) {
        int proved;
        if (attacker) {
            proved = mates_in_one(core, ply);
        } else if (depth == 1) {
            proved = every_defence_mated_in_one(core, ply);
        } else {
            int moves = has_legal_move(&core->board, &core->lists[ply]);
            proved = moves < 0 ? -1 : !moves && in_check(&core->board, core->board.side);
        }
        if (proved < 0) return -1;
        settle(core, key, depth, proved, core->spending.nodes - started + 1, out_pn, out_dn);
        return 0;
    }
    MoveList *list = &core->lists[ply];
    if (attacker) {
        /* A mate in one is looked for once; its absence is kept as a disproof at depth 1. */
        Entry *e = find(core, key);
        if (!(e && e->disproved > 1)) {
            int mates = settled_mates_in_one(core, ply);
            if (mates < 0) return -1;
            if (mates) {
                *out_pn = 0, *out_dn = INFINITE;
                return 0;
            }
        }
        if (attacking_moves(core, ply, depth) < 0) return -1;
        if (!list->count) { /* the attacker is mated or stalemated */
            settle(core, key, NO_DEPTH, 0, 1, out_pn, out_dn);
            return 0;
        }
    } else {
        if (defending_moves(core, ply, depth) < 0) return -1;
        if (!list->count) { /* mated: proved at every depth; stalemate: disproved at every depth */
            int mated = in_check(&core->board, core->board.side);
            settle(core, key, mated ? 0 : NO_DEPTH, mated, 1, out_pn, out_dn);
            return 0;
        }
    }
    if (spend(core, (uint64_t)list->count) < 0) return -1;
    int child_depth = attacker ? depth - 1 : depth, count = list->count;
    Move *moves = list->moves;
    uint64_t *pns = list->pns, *dns = list->dns;
    for (int i = 0; i < count; i++) {
        int unknown =
            lookup(core, key_after(core->key, &moves[i]), child_depth, !attacker, &pns[i], &dns[i]);
        /* A defence that checks leaves the attacker a few evasions to disprove: tried first. */
        if (unknown && !attacker && moves[i].kind == CHECK) dns[i] = 1;
    }
    for (;;) {
        const uint64_t *own = attacker ? pns : dns, *other = attacker ? dns : pns;
        uint64_t first = INFINITE + 1, second = INFINITE + 1, sum = 0;
        int best = 0;
        for (int i = 0; i < count; i++) {
            if (own[i] < first) {
                second = first, first = own[i], best = i;
            } else if (own[i] < second) {
                second = own[i];
            }
            sum += other[i];
        }
        if (second > INFINITE) second = INFINITE;
        if (sum > LARGEST) sum = LARGEST;
        if (attacker) {
            pn = first, dn = pn == 0 ? INFINITE : sum;
        } else {
            dn = first, pn = dn == 0 ? INFINITE : sum;
        }
        if (pn >= proof_limit || dn >= disproof_limit) {
            if (dn == 0 && !attacker)
                core->killers[depth] = moves[best], core->has_killer[depth] = 1;
            store(core, key, depth, pn, dn, core->spending.nodes - started);
            *out_pn = pn, *out_dn = dn;
            return 0;
        }
        uint64_t widened = second + ((second >> 2) > 1 ? (second >> 2) : 1), child_proof,
                 child_disproof;
        if (attacker) {
            child_proof = proof_limit < widened ? proof_limit : widened;
            child_disproof = disproof_limit - dn + dns[best];
        } else {
            child_disproof = disproof_limit < widened ? disproof_limit : widened;
            child_proof = proof_limit - pn + pns[best];
        }
        Move m = moves[best];
        int place = play(core, &m);
        int failed = mid(core, ply + 1, child_depth, !attacker, child_proof, child_disproof,
                         &pns[best], &dns[best]);
        undo(core, &m, place);
        if (failed) return -1;
    }
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
    uint64_t most = (uint64_t)entries / BUCKET ? (uint64_t)entries / BUCKET : 1;
    uint64_t buckets = most < 1024 ? most : 1024;
    free(self->table);
    self->table = calloc((size_t)(buckets * BUCKET), sizeof(Entry));
    if (!self->table) {
        PyErr_NoMemory();
        return -1;
    }
    self->buckets = buckets, self->most_buckets = most, self->filled = 0;
    self->most_entries = most * BUCKET;
    for (size_t i = 0; i < sizeof self->lists / sizeof self->lists[0]; i++)
        self->lists[i].numbers = 1;
    return 0;
}

static void core_dealloc(Core *self) {
    free(self->table);
    free_board(&self->board);
    for (size_t i = 0; i < sizeof self->lists / sizeof self->lists[0]; i++)
        free_moves(&self->lists[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Check a call's arguments and set its position on the board; 0, or -1 with the error set. */
static int begin(Core *self, int size, PyObject *pieces, int side, int depth, PyObject *rules,
                 PyObject *spend, long long allowance) {
    if (size < 1 || size > LARGEST_SIZE || side < 0 || side > 1 || depth < 0 ||
        depth > MAX_MATE_MOVES) {
        PyErr_SetString(PyExc_ValueError, "size, side or depth out of range");
        return -1;
    }
    if (!self->table) {
        PyErr_SetString(PyExc_RuntimeError, "Core was not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Core is already searching");
        return -1;
    }
    if (set_size(&self->board, size) < 0 || set_rules(&self->board, rules) < 0 ||
        set_pieces(&self->board, pieces, side) < 0)
        return -1;
    self->key = board_key(&self->board);
    spending_start(&self->spending, spend, allowance);
    self->busy = 1;
    return 0;
}

/* End a call: hand the positions not yet spent to `spend` unless the search failed (its
   exception is set: nothing more is spent); return whether the call failed. */
static int end(Core *self, int failed) {
    failed = spending_finish(&self->spending, failed);
    self->busy = 0; /* only now: the last hand-over calls `spend` */
    return failed;
}

/* The keys: each of the attacker's moves worth trying (checks only with one move left) is
   played and its defender's node proved or disproved, as ProofNumberSearch.keys does; the
   whole question in one call saves a call and a list of pieces per move. */
static PyObject *core_keys(Core *self, PyObject *args) {
    int size, side, moves;
    long long allowance;
    PyObject *pieces, *spend_function, *rules = Py_None;
    if (!PyArg_ParseTuple(args, "iO!iiOL|O", &size, &PyList_Type, &pieces, &side, &moves,
                          &spend_function, &allowance, &rules))
        return NULL;
    if (moves < 1) {
        PyErr_SetString(PyExc_ValueError, "moves must be 1 or more");
        return NULL;
    }
    if (begin(self, size, pieces, side, moves, rules, spend_function, allowance) < 0) return NULL;
    PyObject *found = PyList_New(0);
    MoveList *tries = &self->lists[0];
    int failed =
        !found || attacking_moves(self, 0, moves) < 0 || spend(self, (uint64_t)tries->count) < 0;
    for (int i = 0; !failed && i < tries->count; i++) {
        Move m = tries->moves[i];
        uint64_t pn, dn;
        int place = play(self, &m);
        failed = mid(self, 1, moves - 1, 0, INFINITE, INFINITE, &pn, &dn) < 0;
        undo(self, &m, place);
        if (failed || pn != 0) continue;
        PyObject *key = Py_BuildValue("(iii)", m.origin, m.target, m.promotion);
        failed = !key || PyList_Append(found, key) < 0;
        Py_XDECREF(key);
    }
    if (end(self, failed)) {
        Py_XDECREF(found);
        return NULL;
    }
    return found;
}

static PyMethodDef core_methods[] = {
    {"keys", (PyCFunction)core_keys, METH_VARARGS,
     "keys(size, pieces, side, moves, spend, allowance, rules=None)\n"
     "    -> list[tuple[int, int, int]]\n\n"
     "Return (origin, target, promotion code or 0) of every move of the side to move that\n"
     "mates in `moves` or fewer. `pieces` lists cell << 4 | code (code: side << 3 | kind,\n"
     "kinds K Q R B N U P = 1 ... 7); `spend(count)` is called with the positions generated,\n"
     "at once when they would pass `allowance` (the budget's positions left), so that it\n"
     "raises; `rules` are the variant's (kernel/compiled.py's core_rules; None: the cube's)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef core_members[] = {
    {"entries", T_ULONGLONG, offsetof(Core, filled), READONLY, "Entries in use in the table."},
    {"most_entries", T_ULONGLONG, offsetof(Core, most_entries), READONLY,
     "The most entries the table may hold."},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject MateCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kernel._core.MateCore",
    .tp_doc = "The df-pn mate search, compiled, with its table of `table_entries` entries.",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_members = core_members,
};
