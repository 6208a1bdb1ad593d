/* Solving one ending by retrograde analysis, for the endgame tables (docs/tablebases.md).

   Mirrors tablebase/retrograde.py, the one to read first: the same forward pass (values of
   the positions not stored, mates, stalemates, captures into the smaller tables, the count
   of distinct quiet successors plus the captures that do not lose), the same ply-by-ply
   un-moving from the frontier, and kernel/tables/tablebase.py's index (the white king brought into
   the region by the 48 symmetries of the cube, the smallest index of those, identical
   pieces sorted). Where it differs:
   - a position is its pieces' cells (at most five), not a board: "who attacks this cell"
     asks each piece through core.h's could_attack and walks the cells between, and the
     moves walk (x, y, z) to the edge; board.c's padded board and piece lists would have to
     be filled for every one of the millions of positions a table has, and its questions
     (pins, discovered checks) are for positions of many pieces;
   - the predecessors of a frontier position are made distinct by sorting, not in a set;
   - positions decided later (capture wins, deferred losses) wait in one growable list per
     ply, and Ctrl-C is looked for every 2^16 positions and at each ply;
   - the variant is a name, "cube" or "raumschach", and its kinds are this file's: under
     Raumschach's rules 'b' is FLAT_BISHOP (the 12 flat diagonals, a kind core.h does not
     have) and 'u' is UNICORN, which moves as the cube's bishop (the 8 triagonals); the
     directions are written here from the rules, as retrograde.py writes its own;
   - with `compact`, positions are numbered by format version 3's index
     (kernel/tables/compact.py): the kings as a pair up to symmetry, apart, and each run of
     identical pieces (a single piece a run of one) as a set, by the combinatorial number
     system; a king un-moved beside the other has no index (UINT64_MAX) and is passed over. */

#include "core.h"

#define MOST_PIECES 5
#define SYMMETRIES 48
#define NO_VALUE 255
#define MOST_PLIES 253
/* Raumschach's bishop: core.h's kinds stop at PAWN (7), so this file's own number. */
#define FLAT_BISHOP 8
/* The most identical pieces of one kind in an ending of MOST_PIECES: a set's size. */
#define MOST_IN_SET 3

typedef struct {
    int size, cells, regions;
    int16_t *transforms;      /* SYMMETRIES * cells: each symmetry as a map of cells */
    int16_t *region, *region_index;
    uint8_t *king_transforms; /* cells * SYMMETRIES: those bringing a king there into the region */
    uint8_t *king_counts;
    int8_t (*xyz)[3];
    /* Version 3's index: the pairs of kings (each pair's cells), each (region place, black
       king's cell) to its pair or -1, and C(c, k) for c <= cells, k <= MOST_IN_SET. */
    int compact, pairs;
    int16_t (*pair_cells)[2];
    int32_t *pair_number;
    uint64_t *binomials;
} Cube;

typedef struct {
    int count;
    int kind[MOST_PIECES], side[MOST_PIECES];
    int runs[MOST_PIECES][2], run_count;
    /* Version 3: the runs after the kings, single pieces included, and Π C(cells, k). */
    int sets[MOST_PIECES][2], set_count;
    uint64_t set_entries;
    uint64_t entries;
} Material;

typedef struct {
    int slot, swapped;
    int order[MOST_PIECES];
    Material material;
    const uint8_t *values; /* NULL for bare kings: a draw */
} Capture;

typedef struct {
    uint64_t *items;
    size_t count, capacity;
} List;

static int push(List *list, uint64_t item) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 1024;
        uint64_t *items = realloc(list->items, capacity * sizeof(uint64_t));
        if (!items) {
            PyErr_NoMemory();
            return -1;
        }
        list->items = items, list->capacity = capacity;
    }
    list->items[list->count++] = item;
    return 0;
}

static void free_cube(Cube *cube) {
    free(cube->transforms), free(cube->region), free(cube->region_index);
    free(cube->king_transforms), free(cube->king_counts), free(cube->xyz);
    free(cube->pair_cells), free(cube->pair_number), free(cube->binomials);
    memset(cube, 0, sizeof *cube); /* make_cube frees on failure, and tear_down again */
}

static inline uint64_t binomial(const Cube *cube, int c, int k) {
    return cube->binomials[(size_t)c * (MOST_IN_SET + 1) + k];
}

/* Version 3's tables: the pairs of kings apart, each in its stored form (the white king in
   the region, the black king on the smallest cell the symmetries keeping it there give), in
   the order of (region place, black king's cell); and the binomial coefficients. */
static int make_pairs(Cube *cube) {
    int cells = cube->cells;
    cube->pair_cells = malloc((size_t)cube->regions * cells * sizeof *cube->pair_cells);
    cube->pair_number = malloc((size_t)cube->regions * cells * sizeof(int32_t));
    cube->binomials = calloc((size_t)(cells + 1) * (MOST_IN_SET + 1), sizeof(uint64_t));
    if (!cube->pair_cells || !cube->pair_number || !cube->binomials) {
        PyErr_NoMemory();
        return -1;
    }
    for (int c = 0; c <= cells; c++) {
        uint64_t *row = cube->binomials + (size_t)c * (MOST_IN_SET + 1);
        row[0] = 1;
        for (int k = 1; k <= MOST_IN_SET && k <= c; k++)
            row[k] = binomial(cube, c - 1, k - 1) + (k <= c - 1 ? binomial(cube, c - 1, k) : 0);
    }
    cube->pairs = 0;
    for (int place = 0; place < cube->regions; place++) {
        int king = cube->region[place];
        const int8_t *at = cube->xyz[king];
        for (int black = 0; black < cells; black++) {
            const int8_t *to = cube->xyz[black];
            int32_t *number = &cube->pair_number[(size_t)place * cells + black];
            *number = -1;
            if (abs(at[0] - to[0]) <= 1 && abs(at[1] - to[1]) <= 1 && abs(at[2] - to[2]) <= 1)
                continue;
            int least = black;
            for (int k = 0; k < cube->king_counts[king]; k++) {
                int t = cube->king_transforms[(size_t)king * SYMMETRIES + k];
                int mapped = cube->transforms[(size_t)t * cells + black];
                if (mapped < least) least = mapped;
            }
            if (least != black) continue;
            *number = cube->pairs;
            cube->pair_cells[cube->pairs][0] = (int16_t)king;
            cube->pair_cells[cube->pairs++][1] = (int16_t)black;
        }
    }
    return 0;
}

static int make_cube(Cube *cube, int size, int compact) {
    int cells = size * size * size, half = (size - 1) / 2;
    memset(cube, 0, sizeof *cube);
    cube->size = size, cube->cells = cells;
    cube->transforms = malloc((size_t)SYMMETRIES * cells * sizeof(int16_t));
    cube->region = malloc((size_t)cells * sizeof(int16_t));
    cube->region_index = malloc((size_t)cells * sizeof(int16_t));
    cube->king_transforms = malloc((size_t)cells * SYMMETRIES);
    cube->king_counts = calloc((size_t)cells, 1);
    cube->xyz = malloc((size_t)cells * sizeof *cube->xyz);
    if (!cube->transforms || !cube->region || !cube->region_index || !cube->king_transforms ||
        !cube->king_counts || !cube->xyz) {
        free_cube(cube);
        PyErr_NoMemory();
        return -1;
    }
    for (int cell = 0; cell < cells; cell++) {
        cube->xyz[cell][0] = (int8_t)(cell % size);
        cube->xyz[cell][1] = (int8_t)(cell / size % size);
        cube->xyz[cell][2] = (int8_t)(cell / size / size);
        cube->region_index[cell] = -1;
    }
    /* The same order as kernel/tables/tablebase.py: the orders of the axes as itertools.permutations
       gives them, the reflections as itertools.product((False, True), repeat=3). */
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int t = 0;
    for (int o = 0; o < 6; o++)
        for (int flips = 0; flips < 8; flips++, t++)
            for (int cell = 0; cell < cells; cell++) {
                int turned[3];
                for (int axis = 0; axis < 3; axis++) {
                    int c = cube->xyz[cell][axis];
                    turned[axis] = (flips >> (2 - axis)) & 1 ? size - 1 - c : c;
                }
                int x = turned[orders[o][0]], y = turned[orders[o][1]], z = turned[orders[o][2]];
                cube->transforms[(size_t)t * cells + cell] = (int16_t)(x + size * (y + size * z));
            }
    int regions = 0;
    for (int z = 0; z <= half; z++)
        for (int y = 0; y <= z; y++)
            for (int x = 0; x <= y; x++) {
                int cell = x + size * (y + size * z);
                cube->region_index[cell] = (int16_t)regions;
                cube->region[regions++] = (int16_t)cell;
            }
    cube->regions = regions;
    for (int cell = 0; cell < cells; cell++)
        for (t = 0; t < SYMMETRIES; t++)
            if (cube->region_index[cube->transforms[(size_t)t * cells + cell]] >= 0)
                cube->king_transforms[(size_t)cell * SYMMETRIES + cube->king_counts[cell]++] =
                    (uint8_t)t;
    cube->compact = compact;
    return compact ? make_pairs(cube) : 0;
}

/* A letter's kind under the variant (`raumschach` 0: the cube's rules), 0 if it has none. */
static int kind_of(char letter, int raumschach) {
    switch (letter | 0x20) {
        case 'k':
            return KING;
        case 'q':
            return QUEEN;
        case 'r':
            return ROOK;
        case 'b':
            return raumschach ? FLAT_BISHOP : BISHOP;
        case 'u':
            return raumschach ? UNICORN : 0;
        case 'n':
            return KNIGHT;
        default:
            return 0;
    }
}

/* Tell whether a piece of `kind` on an empty board reaches the difference (dx, dy, dz):
   core.h's could_attack for the cube's kinds, the unicorn as the cube's bishop, the flat
   bishop along two axes at once. */
static int reaches(int kind, int dx, int dy, int dz) {
    if (kind == UNICORN) return could_attack(BISHOP, dx, dy, dz);
    if (kind == FLAT_BISHOP) {
        int a = abs(dx), b = abs(dy), c = abs(dz);
        return (a == 0 && b == c && b) || (b == 0 && a == c && a) || (c == 0 && a == b && a);
    }
    return could_attack(kind, dx, dy, dz);
}

/* Read an ending's letters in index order (`KkQr`: upper case white's). */
static int make_material(Material *material, const Cube *cube, const char *letters,
                         int raumschach) {
    int count = (int)strlen(letters);
    if (count < 2 || count > MOST_PIECES || letters[0] != 'K' || letters[1] != 'k') {
        PyErr_Format(PyExc_ValueError, "not an ending's letters: %s", letters);
        return -1;
    }
    material->count = count, material->run_count = 0;
    for (int i = 0; i < count; i++) {
        material->kind[i] = kind_of(letters[i], raumschach);
        material->side[i] = letters[i] >= 'a';
        if (!material->kind[i]) {
            PyErr_Format(PyExc_ValueError, "not an ending's letters: %s", letters);
            return -1;
        }
    }
    for (int start = 0, end = 1; end <= count; end++)
        if (end == count || letters[end] != letters[start]) {
            if (end - start > 1) {
                material->runs[material->run_count][0] = start;
                material->runs[material->run_count++][1] = end;
            }
            start = end;
        }
    material->set_count = 0;
    material->set_entries = 1;
    for (int start = 2, end = 3; end <= count; end++)
        if (end == count || letters[end] != letters[start]) {
            if (end - start > MOST_IN_SET) {
                PyErr_Format(PyExc_ValueError, "more than %d identical pieces: %s", MOST_IN_SET,
                             letters);
                return -1;
            }
            material->sets[material->set_count][0] = start;
            material->sets[material->set_count++][1] = end;
            if (cube->compact) material->set_entries *= binomial(cube, cube->cells, end - start);
            start = end;
        }
    uint64_t entries = 2 * (uint64_t)cube->regions;
    for (int i = 1; i < count; i++) entries *= (uint64_t)cube->cells;
    if (cube->compact) entries = 2 * (uint64_t)cube->pairs * material->set_entries;
    material->entries = entries;
    return 0;
}

/* Version 3's stored index (kernel/tables/compact.py's compact_index): of the symmetries
   giving the black king its smallest cell (the white king in the region), the smallest
   number of the sets; UINT64_MAX when the kings are not apart. */
static uint64_t compact_index(const Cube *cube, const Material *material, int side,
                              const int *cells) {
    uint64_t best = UINT64_MAX;
    int king = cells[0], best_black = cube->cells, place = 0;
    for (int k = 0; k < cube->king_counts[king]; k++) {
        const int16_t *table = cube->transforms +
                               (size_t)cube->king_transforms[(size_t)king * SYMMETRIES + k] *
                                   cube->cells;
        int black = table[cells[1]];
        if (black > best_black) continue;
        if (black < best_black) best_black = black, best = UINT64_MAX;
        place = cube->region_index[table[king]];
        uint64_t rest = 0;
        for (int g = 0; g < material->set_count; g++) {
            int start = material->sets[g][0], many = material->sets[g][1] - start;
            int chosen[MOST_IN_SET];
            for (int i = 0; i < many; i++) {
                int cell = table[cells[start + i]], j = i;
                for (; j > 0 && chosen[j - 1] > cell; j--) chosen[j] = chosen[j - 1];
                chosen[j] = cell;
            }
            uint64_t rank = 0;
            for (int i = 0; i < many; i++) rank += binomial(cube, chosen[i], i + 1);
            rest = rest * binomial(cube, cube->cells, many) + rank;
        }
        if (rest < best) best = rest;
    }
    int32_t pair = cube->pair_number[(size_t)place * cube->cells + best_black];
    if (pair < 0) return UINT64_MAX;
    return ((uint64_t)side * cube->pairs + (uint64_t)pair) * material->set_entries + best;
}

/* The stored index of a position: kernel/tables/tablebase.py's canonical_index. Every symmetry
   tried brings the white king to the same region cell, so the black king's cell decides
   first: a symmetry putting it on a larger cell than the best so far is passed over. */
static uint64_t position_index(const Cube *cube, const Material *material, int side,
                               const int *cells) {
    if (cube->compact) return compact_index(cube, material, side, cells);
    uint64_t best = UINT64_MAX;
    int king = cells[0], count = material->count, best_black = cube->cells;
    for (int k = 0; k < cube->king_counts[king]; k++) {
        const int16_t *table = cube->transforms +
                               (size_t)cube->king_transforms[(size_t)king * SYMMETRIES + k] *
                                   cube->cells;
        int mapped[MOST_PIECES] = {0};
        mapped[1] = table[cells[1]];
        if (mapped[1] > best_black) continue;
        best_black = mapped[1];
        mapped[0] = table[king];
        for (int i = 2; i < count; i++) mapped[i] = table[cells[i]];
        for (int r = 0; r < material->run_count; r++)
            for (int i = material->runs[r][0] + 1; i < material->runs[r][1]; i++)
                for (int j = i; j > material->runs[r][0] && mapped[j - 1] > mapped[j]; j--) {
                    int swap = mapped[j];
                    mapped[j] = mapped[j - 1], mapped[j - 1] = swap;
                }
        uint64_t index = (uint64_t)side * cube->regions + (uint64_t)cube->region_index[mapped[0]];
        for (int i = 1; i < count; i++) index = index * (uint64_t)cube->cells + (uint64_t)mapped[i];
        if (index < best) best = index;
    }
    return best;
}

/* Version 3: the cells of a set's number, each the largest c with C(c, i) <= what is left. */
static void set_cells(const Cube *cube, uint64_t rank, int many, int *cells) {
    for (int i = many; i >= 1; i--) {
        int low = i - 1, high = cube->cells - 1; /* C(low, i) = 0 <= rank */
        while (low < high) {
            int middle = (low + high + 1) / 2;
            if (binomial(cube, middle, i) <= rank)
                low = middle;
            else
                high = middle - 1;
        }
        cells[i - 1] = low;
        rank -= binomial(cube, low, i);
    }
}

static int decode(const Cube *cube, const Material *material, uint64_t index, int *cells) {
    if (cube->compact) {
        for (int g = material->set_count - 1; g >= 0; g--) {
            int start = material->sets[g][0], many = material->sets[g][1] - start;
            uint64_t size = binomial(cube, cube->cells, many);
            set_cells(cube, index % size, many, cells + start);
            index /= size;
        }
        int pair = (int)(index % (uint64_t)cube->pairs);
        cells[0] = cube->pair_cells[pair][0], cells[1] = cube->pair_cells[pair][1];
        return (int)(index / (uint64_t)cube->pairs);
    }
    for (int i = material->count - 1; i >= 1; i--) {
        cells[i] = (int)(index % (uint64_t)cube->cells);
        index /= (uint64_t)cube->cells;
    }
    cells[0] = cube->region[index % (uint64_t)cube->regions];
    return (int)(index / (uint64_t)cube->regions);
}

/* Tell whether a piece of `side` (not the one of slot `gone`; a captured slot holds -1)
   attacks `cell`. */
static int piece_attacks(const Cube *cube, const Material *material, const int *cells, int cell,
                    int side, int gone) {
    const int8_t *to = cube->xyz[cell];
    for (int slot = 0; slot < material->count; slot++) {
        if (slot == gone || material->side[slot] != side || cells[slot] < 0) continue;
        const int8_t *from = cube->xyz[cells[slot]];
        int dx = to[0] - from[0], dy = to[1] - from[1], dz = to[2] - from[2];
        int kind = material->kind[slot];
        if (kind == KING) {
            if (abs(dx) <= 1 && abs(dy) <= 1 && abs(dz) <= 1 && (dx || dy || dz)) return 1;
            continue;
        }
        if (!reaches(kind, dx, dy, dz)) continue;
        if (kind == KNIGHT) return 1;
        int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0), sz = (dz > 0) - (dz < 0);
        int step = sx + cube->size * (sy + cube->size * sz), clear = 1;
        for (int on = cells[slot] + step; on != cell && clear; on += step)
            for (int other = 0; other < material->count; other++)
                if (other != gone && cells[other] == on) clear = 0;
        if (clear) return 1;
    }
    return 0;
}

static const int8_t LEAPS[24][3] = {
    {1, 2, 0},  {1, -2, 0},  {-1, 2, 0}, {-1, -2, 0}, {2, 1, 0},  {2, -1, 0},
    {-2, 1, 0}, {-2, -1, 0}, {1, 0, 2},  {1, 0, -2},  {-1, 0, 2}, {-1, 0, -2},
    {2, 0, 1},  {2, 0, -1},  {-2, 0, 1}, {-2, 0, -1}, {0, 1, 2},  {0, 1, -2},
    {0, -1, 2}, {0, -1, -2}, {0, 2, 1},  {0, 2, -1},  {0, -2, 1}, {0, -2, -1},
};

/* The directions of a kind as (dx, dy, dz) and whether it slides; returns how many: the
   lines along one axis (rook), three (the cube's bishop, the unicorn), two (the flat bishop),
   or any (king, queen). */
static int directions(int kind, int8_t (*found)[3], int *slides) {
    int count = 0;
    *slides = kind == QUEEN || kind == ROOK || kind == BISHOP || kind == UNICORN ||
              kind == FLAT_BISHOP;
    if (kind == KNIGHT) {
        memcpy(found, LEAPS, sizeof LEAPS);
        return 24;
    }
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int axes = (dx != 0) + (dy != 0) + (dz != 0);
                if (!axes || (kind == ROOK && axes != 1) ||
                    ((kind == BISHOP || kind == UNICORN) && axes != 3) ||
                    (kind == FLAT_BISHOP && axes != 2))
                    continue;
                found[count][0] = (int8_t)dx, found[count][1] = (int8_t)dy;
                found[count++][2] = (int8_t)dz;
            }
    return count;
}

/* A move or an un-move: the slot, the target and the slot taken (-1: none). */
typedef struct {
    int slot, target, taken;
} Step;

static int occupant(const Material *material, const int *cells, int cell) {
    for (int slot = 0; slot < material->count; slot++)
        if (cells[slot] == cell) return slot;
    return -1;
}

/* What steps_of lists: the legal moves, the quiet moves backwards (un-moves: for pieces
   that move alike both ways, also the quiet moves forwards, legal or not), or the legal
   captures alone. */
enum { MOVES, UNMOVES, CAPTURES };

/* List the legal moves of `side` (retrograde.py's Rules.moves), the quiet moves it could have
   just made, backwards (Rules.unmoves), or its legal captures; returns how many. */
static int steps_of(const Cube *cube, const Material *material, const int *cells, int side,
                    int what, Step *found) {
    int count = 0, size = cube->size;
    for (int slot = 0; slot < material->count; slot++) {
        if (material->side[slot] != side) continue;
        int8_t dirs[26][3];
        int slides, many = directions(material->kind[slot], dirs, &slides);
        const int8_t *from = cube->xyz[cells[slot]];
        for (int d = 0; d < many; d++) {
            int x = from[0] + dirs[d][0], y = from[1] + dirs[d][1], z = from[2] + dirs[d][2];
            while (x >= 0 && x < size && y >= 0 && y < size && z >= 0 && z < size) {
                int target = x + size * (y + size * z);
                int taken = occupant(material, cells, target);
                if (taken >= 0 && (what == UNMOVES || material->side[taken] == side)) break;
                if (what == UNMOVES) {
                    found[count++] = (Step){slot, target, -1};
                } else if (taken >= 0 || what == MOVES) {
                    int after[MOST_PIECES];
                    memcpy(after, cells, sizeof after);
                    after[slot] = target;
                    if (taken >= 0) after[taken] = -1;
                    if (!piece_attacks(cube, material, after, after[side], 1 - side, taken))
                        found[count++] = (Step){slot, target, taken};
                }
                if (taken >= 0 || !slides) break;
                x += dirs[d][0], y += dirs[d][1], z += dirs[d][2];
            }
        }
    }
    return count;
}

static int cube_in_check(const Cube *cube, const Material *material, const int *cells, int side) {
    return piece_attacks(cube, material, cells, cells[side], 1 - side, -1);
}

/* Sort a few indices (the successors or predecessors of one position: tens, a few hundred
   at most) in place: Shell's sort, no calls per comparison as qsort makes. */
static void sort_indices(uint64_t *items, int count) {
    static const int gaps[] = {132, 57, 23, 10, 4, 1};
    for (int g = 0; g < 6; g++) {
        int gap = gaps[g];
        for (int i = gap; i < count; i++) {
            uint64_t item = items[i];
            int j = i;
            for (; j >= gap && items[j - gap] > item; j -= gap) items[j] = items[j - gap];
            items[j] = item;
        }
    }
}

static uint8_t capture_value(const Cube *cube, const Capture *capture, const int *cells, int side) {
    if (!capture->values) return 0;
    int mapped[MOST_PIECES];
    for (int i = 0; i < capture->material.count; i++) mapped[i] = cells[capture->order[i]];
    return capture->values[position_index(cube, &capture->material,
                                          capture->swapped ? 1 - side : side, mapped)];
}

typedef struct {
    Cube cube;
    Material material;
    Capture captures[MOST_PIECES];
    uint8_t *values, *floors;
    uint16_t *counts;
    uint8_t *looked; /* the lean solve's bit an entry: looked at this ply */
    List later[MOST_PLIES + 2], frontier, decided;
    Step *steps;
    uint64_t *before;
} Solver;

static void free_solver(Solver *s) {
    free_cube(&s->cube);
    free(s->floors), free(s->counts), free(s->looked), free(s->steps), free(s->before);
    for (int p = 0; p < MOST_PLIES + 2; p++) free(s->later[p].items);
    free(s->frontier.items), free(s->decided.items);
}

/* Decode an index; tell whether it is a stored position (its pieces on distinct cells, the
   index its stored form, the side not to move out of check). */
static int stored(const Cube *cube, const Material *material, uint64_t index, int *cells,
                  int *side) {
    *side = decode(cube, material, index, cells);
    for (int i = 0; i < material->count; i++)
        for (int j = i + 1; j < material->count; j++)
            if (cells[i] == cells[j]) return 0;
    return position_index(cube, material, *side, cells) == index &&
           !cube_in_check(cube, material, cells, 1 - *side);
}

/* The value after a capture of slot `taken` (`after` the cells then, `side` to move then),
   or -1 with an exception set. */
static int value_after_capture(const Solver *s, const int *after, int taken, int side) {
    const Capture *capture = NULL;
    for (int c = 0; c < s->material.count; c++)
        if (s->captures[c].slot == taken) capture = &s->captures[c];
    if (!capture) {
        PyErr_SetString(PyExc_ValueError, "no table given for a capture");
        return -1;
    }
    int value = capture_value(&s->cube, capture, after, side);
    if (value == NO_VALUE) {
        PyErr_SetString(PyExc_ValueError, "a capture leads to a position not stored");
        return -1;
    }
    return value;
}

/* The forward pass (retrograde.py's solve, before settle). */
static int forward(Solver *s) {
    const Cube *cube = &s->cube;
    const Material *material = &s->material;
    int cells[MOST_PIECES], side;
    for (uint64_t index = 0; index < material->entries; index++) {
        if ((index & 0xFFFF) == 0 && PyErr_CheckSignals() < 0) return -1;
        if (!stored(cube, material, index, cells, &side)) {
            s->values[index] = NO_VALUE;
            continue;
        }
        int moves = steps_of(cube, material, cells, side, MOVES, s->steps), successors = 0;
        int escapes = 0, best = 0, floor = 0;
        for (int m = 0; m < moves; m++) {
            int after[MOST_PIECES];
            memcpy(after, cells, sizeof after);
            after[s->steps[m].slot] = s->steps[m].target;
            if (s->steps[m].taken < 0) {
                s->before[successors++] = position_index(cube, material, 1 - side, after);
                continue;
            }
            int value = value_after_capture(s, after, s->steps[m].taken, 1 - side);
            if (value < 0) return -1;
            if (value == 0 || value % 2) {
                escapes++;
                if (value && (!best || value < best)) best = value;
            } else if (value > floor)
                floor = value;
        }
        if (!moves) {
            if (cube_in_check(cube, material, cells, side)) {
                s->values[index] = 1;
                if (push(&s->frontier, index) < 0) return -1;
            }
            continue;
        }
        sort_indices(s->before, successors);
        int distinct_successors = 0;
        for (int i = 0; i < successors; i++)
            if (!i || s->before[i] != s->before[i - 1]) distinct_successors++;
        s->counts[index] = (uint16_t)(distinct_successors + escapes);
        s->floors[index] = (uint8_t)floor;
        if (best) {
            if (push(&s->later[best], index) < 0) return -1;
        } else if (!s->counts[index] && push(&s->later[floor], index) < 0)
            return -1;
    }
    return 0;
}

static int pending(const Solver *s, int from) {
    for (int p = from; p < MOST_PLIES + 2; p++)
        if (s->later[p].count) return 1;
    return 0;
}

/* Ply by ply backwards (retrograde.py's settle). */
/* Un-move the position at `index`: the stored indices of its predecessors into s->before,
   sorted, so that repeats stand together and kings side by side (UINT64_MAX) last; returns
   how many. Both settles walk them so. */
static int predecessors(Solver *s, uint64_t index) {
    const Cube *cube = &s->cube;
    const Material *material = &s->material;
    int cells[MOST_PIECES], earlier[MOST_PIECES];
    int side = decode(cube, material, index, cells);
    int many = steps_of(cube, material, cells, 1 - side, UNMOVES, s->steps);
    for (int m = 0; m < many; m++) {
        memcpy(earlier, cells, sizeof earlier);
        earlier[s->steps[m].slot] = s->steps[m].target;
        s->before[m] = position_index(cube, material, 1 - side, earlier);
    }
    sort_indices(s->before, many);
    return many;
}

static int settle(Solver *s) {
    int ply = 0;
    while (s->frontier.count || pending(s, ply + 1)) {
        if (PyErr_CheckSignals() < 0) return -1;
        if (ply >= MOST_PLIES) {
            PyErr_Format(PyExc_ValueError, "a mate longer than %d plies", MOST_PLIES);
            return -1;
        }
        s->decided.count = 0;
        for (size_t f = 0; f < s->frontier.count; f++) {
            int many = predecessors(s, s->frontier.items[f]);
            for (int m = 0; m < many; m++) {
                uint64_t previous = s->before[m];
                if (previous == UINT64_MAX) break; /* sorted last: kings side by side */
                if ((m && previous == s->before[m - 1]) || s->values[previous]) continue;
                if (ply % 2 == 0) {
                    s->values[previous] = (uint8_t)(ply + 2);
                    if (push(&s->decided, previous) < 0) return -1;
                } else if (--s->counts[previous] == 0) {
                    if (s->floors[previous] <= ply + 1) {
                        s->values[previous] = (uint8_t)(ply + 2);
                        if (push(&s->decided, previous) < 0) return -1;
                    } else if (push(&s->later[s->floors[previous]], previous) < 0)
                        return -1;
                }
            }
        }
        ply++;
        List *now = &s->later[ply];
        for (size_t i = 0; i < now->count; i++)
            if (s->values[now->items[i]] == 0) {
                s->values[now->items[i]] = (uint8_t)(ply + 1);
                if (push(&s->decided, now->items[i]) < 0) return -1;
            }
        now->count = 0;
        List swap = s->frontier;
        s->frontier = s->decided, s->decided = swap;
    }
    return 0;
}

/* Set a solver up from the arguments both functions take: the size, the ending's letters
   and its captures, a list of (slot, letters of the smaller ending, swapped, order, values
   or None for bare kings), and the variant's name; the buffers of the smaller tables are
   held in `views`. */
/* Check a table's size and variant: 1 for Raumschach's rules, 0 for the cube's, -1 (an
   exception set) for a size or a variant that has no tables. */
static int tables_variant(int size, const char *variant) {
    if (size < 2 || size > 31) {
        PyErr_Format(PyExc_ValueError, "size %d is outside 2 ... 31", size);
        return -1;
    }
    if (strcmp(variant, "raumschach") == 0) return 1;
    if (strcmp(variant, "cube") == 0) return 0;
    PyErr_Format(PyExc_ValueError, "no tables for the variant %s", variant);
    return -1;
}

static int set_up(Solver *s, int size, const char *letters, PyObject *captures,
                  const char *variant, int compact, Py_buffer *views, int *viewed) {
    memset(s, 0, sizeof *s);
    *viewed = 0;
    int raumschach = tables_variant(size, variant);
    if (raumschach < 0) return -1;
    if (make_cube(&s->cube, size, compact) < 0) return -1;
    if (make_material(&s->material, &s->cube, letters, raumschach) < 0) return -1;
    Py_ssize_t given = PyList_GET_SIZE(captures);
    if (given > MOST_PIECES) {
        PyErr_SetString(PyExc_ValueError, "too many captures");
        return -1;
    }
    for (int c = 0; c < MOST_PIECES; c++) s->captures[c].slot = -1;
    for (Py_ssize_t c = 0; c < given; c++) {
        Capture *capture = &s->captures[c];
        const char *smaller;
        PyObject *order, *values;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(captures, c), "isiO!O", &capture->slot, &smaller,
                              &capture->swapped, &PyTuple_Type, &order, &values))
            return -1;
        if (make_material(&capture->material, &s->cube, smaller, raumschach) < 0) return -1;
        if (PyTuple_GET_SIZE(order) != capture->material.count) {
            PyErr_SetString(PyExc_ValueError, "a capture's order does not fit its letters");
            return -1;
        }
        for (int i = 0; i < capture->material.count; i++) {
            long place = PyLong_AsLong(PyTuple_GET_ITEM(order, i));
            if (place < 0 || place >= s->material.count) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad capture order");
                return -1;
            }
            capture->order[i] = (int)place;
        }
        if (values == Py_None) continue;
        if (PyObject_GetBuffer(values, &views[*viewed], PyBUF_SIMPLE) < 0) return -1;
        if ((uint64_t)views[*viewed].len != capture->material.entries) {
            PyBuffer_Release(&views[*viewed]);
            PyErr_SetString(PyExc_ValueError, "a smaller table of the wrong length");
            return -1;
        }
        capture->values = views[(*viewed)++].buf;
    }
    size_t most = (size_t)MOST_PIECES * 26 * (size_t)size + 24 * MOST_PIECES;
    s->steps = malloc(most * sizeof(Step));
    s->before = malloc(most * sizeof(uint64_t));
    if (!s->steps || !s->before) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void tear_down(Solver *s, Py_buffer *views, int viewed) {
    for (int v = 0; v < viewed; v++) PyBuffer_Release(&views[v]);
    free_solver(s);
}

/* retrograde(size, letters, captures, variant="cube", compact=0) -> bytearray: every
   index's value. */
PyObject *retrograde(PyObject *self, PyObject *args) {
    int size, viewed, compact = 0;
    const char *letters, *variant = "cube";
    PyObject *captures, *result = NULL;
    Py_buffer views[MOST_PIECES];
    Solver s;
    (void)self;
    if (!PyArg_ParseTuple(args, "isO!|si", &size, &letters, &PyList_Type, &captures, &variant,
                          &compact))
        return NULL;
    if (set_up(&s, size, letters, captures, variant, compact, views, &viewed) < 0) goto done;
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)s.material.entries);
    s.floors = calloc((size_t)s.material.entries, 1);
    s.counts = calloc((size_t)s.material.entries, sizeof(uint16_t));
    if (!result || !s.floors || !s.counts) {
        Py_CLEAR(result);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    s.values = (uint8_t *)PyByteArray_AS_STRING(result);
    memset(s.values, 0, (size_t)s.material.entries);
    if (forward(&s) < 0 || settle(&s) < 0) Py_CLEAR(result);
done:
    tear_down(&s, views, viewed);
    return result;
}

/* --- The lean solve (issue 52, item 2): tablebase/lean.py ----------------------------------

   The values alone and a bit an entry, no counts nor floors: 1.125 bytes an entry where
   retrograde above holds 4, the same bytes out. Where it differs from lean.py:
   - a position looked at takes its quiet moves as un-moves (steps_of's UNMOVES: the pieces
     move alike both ways) without asking whether each leaves its king attacked: the value
     after such a move is NO_VALUE (the side not to move in check), or it has no index at all
     (version 3: the kings side by side), and either says the move is not legal, without the
     walk over the attackers; this is most of a look's cost where the moves are legal, and a
     look stops at its first quiet move that is no final win. Captures are asked (a capture
     into bare kings has no table to say it), and only when every quiet move passed;
   - the frontier of a ply is found with memchr over the values, and Ctrl-C is looked for at
     each ply and every 2^16 positions of a frontier. */

/* A value the lean solve would write: above MOST_PLIES it would be no byte (255 is
   NO_VALUE) or reach the ply retrograde's settle stops at. */
static int too_long(int value) {
    if (value <= MOST_PLIES) return 0;
    PyErr_Format(PyExc_ValueError, "a mate longer than %d plies", MOST_PLIES);
    return 1;
}

/* The forward pass without counts (lean.py's first_value); `highest` the largest value
   written. */
static int forward_lean(Solver *s, int *highest) {
    const Cube *cube = &s->cube;
    const Material *material = &s->material;
    int cells[MOST_PIECES], side;
    for (uint64_t index = 0; index < material->entries; index++) {
        if ((index & 0xFFFF) == 0 && PyErr_CheckSignals() < 0) return -1;
        if (!stored(cube, material, index, cells, &side)) {
            s->values[index] = NO_VALUE;
            continue;
        }
        int moves = steps_of(cube, material, cells, side, MOVES, s->steps);
        int quiet = 0, escape = 0, best = 0, floor = 0, value = 0;
        for (int m = 0; m < moves; m++) {
            if (s->steps[m].taken < 0) {
                quiet++;
                continue;
            }
            int after[MOST_PIECES];
            memcpy(after, cells, sizeof after);
            after[s->steps[m].slot] = s->steps[m].target;
            int captured = value_after_capture(s, after, s->steps[m].taken, 1 - side);
            if (captured < 0) return -1;
            if (captured == 0 || captured % 2) {
                escape = 1;
                if (captured && (!best || captured < best)) best = captured;
            } else if (captured > floor)
                floor = captured;
        }
        if (!moves)
            value = cube_in_check(cube, material, cells, side) ? 1 : 0;
        else if (best)
            value = best + 1; /* provisional: a quiet move may win sooner */
        else if (!quiet && !escape)
            value = floor + 1; /* every move a capture into the opponent's win */
        if (too_long(value)) return -1;
        s->values[index] = (uint8_t)value;
        if (value > *highest) *highest = value;
    }
    return 0;
}

/* The value of an undecided position at odd `ply` if it is lost now, else 0, or -1 with an
   exception set (lean.py's loss_value): every quiet move into a win of at most ply + 1
   plies, every capture into the opponent's win. */
static int lean_loss(Solver *s, uint64_t index, int ply) {
    const Cube *cube = &s->cube;
    const Material *material = &s->material;
    int cells[MOST_PIECES], after[MOST_PIECES];
    int side = decode(cube, material, index, cells);
    int many = steps_of(cube, material, cells, side, UNMOVES, s->steps);
    for (int m = 0; m < many; m++) {
        memcpy(after, cells, sizeof after);
        after[s->steps[m].slot] = s->steps[m].target;
        uint64_t next = position_index(cube, material, 1 - side, after);
        if (next == UINT64_MAX) continue; /* kings side by side: not a legal move */
        int value = s->values[next];
        if (value == NO_VALUE) continue; /* its king left attacked: not a legal move */
        if (value == 0 || value % 2 || value > ply + 1) return 0;
    }
    int floor = 0;
    many = steps_of(cube, material, cells, side, CAPTURES, s->steps);
    for (int m = 0; m < many; m++) {
        memcpy(after, cells, sizeof after);
        after[s->steps[m].slot] = s->steps[m].target;
        int value = value_after_capture(s, after, s->steps[m].taken, 1 - side);
        if (value < 0) return -1;
        if (value == 0 || value % 2) return 0; /* an escape */
        if (value > floor) floor = value;
    }
    return (ply + 1 > floor ? ply + 1 : floor) + 1;
}

/* Ply by ply backwards, the frontier of ply p the values p + 1 (lean.py's settle_lean). */
static int settle_lean(Solver *s, int highest) {
    size_t entries = (size_t)s->material.entries, bits = (entries + 7) / 8;
    for (int ply = 0; ply + 1 <= highest; ply++) {
        if (PyErr_CheckSignals() < 0) return -1;
        if (ply % 2) memset(s->looked, 0, bits);
        uint8_t *end = s->values + entries, *at = memchr(s->values, ply + 1, entries);
        if (at && ply >= MOST_PLIES) {
            too_long(ply + 1);
            return -1;
        }
        for (size_t seen = 1; at; at = memchr(at + 1, ply + 1, (size_t)(end - at - 1)), seen++) {
            if ((seen & 0xFFFF) == 0 && PyErr_CheckSignals() < 0) return -1;
            int many = predecessors(s, (uint64_t)(at - s->values));
            for (int m = 0; m < many; m++) {
                uint64_t previous = s->before[m];
                if (previous == UINT64_MAX) break; /* sorted last: kings side by side */
                if (m && previous == s->before[m - 1]) continue;
                int value = s->values[previous];
                if (ply % 2 == 0) { /* lost: whoever could move into it wins at p + 2 */
                    if (value == 0 || (value % 2 == 0 && value > ply + 2)) {
                        s->values[previous] = (uint8_t)(ply + 2);
                        if (ply + 2 > highest) highest = ply + 2;
                    }
                    continue;
                }
                uint8_t bit = (uint8_t)(1u << (previous & 7));
                if (value || (s->looked[previous >> 3] & bit)) continue;
                s->looked[previous >> 3] |= bit;
                int lost = lean_loss(s, previous, ply);
                if (lost < 0 || too_long(lost)) return -1;
                if (!lost) continue;
                s->values[previous] = (uint8_t)lost;
                if (lost > highest) highest = lost;
            }
        }
    }
    return 0;
}

/* retrograde_lean(size, letters, captures, variant="cube", compact=0) -> bytearray: the
   values of retrograde, in 1.125 bytes an entry. */
PyObject *retrograde_lean(PyObject *self, PyObject *args) {
    int size, viewed, compact = 0, highest = 0;
    const char *letters, *variant = "cube";
    PyObject *captures, *result = NULL;
    Py_buffer views[MOST_PIECES];
    Solver s;
    (void)self;
    if (!PyArg_ParseTuple(args, "isO!|si", &size, &letters, &PyList_Type, &captures, &variant,
                          &compact))
        return NULL;
    if (set_up(&s, size, letters, captures, variant, compact, views, &viewed) < 0) goto done;
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)s.material.entries);
    s.looked = calloc(((size_t)s.material.entries + 7) / 8, 1);
    if (!result || !s.looked) {
        Py_CLEAR(result);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    s.values = (uint8_t *)PyByteArray_AS_STRING(result);
    if (forward_lean(&s, &highest) < 0 || settle_lean(&s, highest) < 0) Py_CLEAR(result);
done:
    tear_down(&s, views, viewed);
    return result;
}

/* The value a position must hold given its moves (tablebase/verify.py's expected_value). */
static int expected(Solver *s, const int *cells, int side) {
    const Cube *cube = &s->cube;
    int moves = steps_of(cube, &s->material, cells, side, MOVES, s->steps);
    if (!moves) return cube_in_check(cube, &s->material, cells, side) ? 1 : 0;
    int fastest = 0, slowest = 0, drawn = 0;
    for (int m = 0; m < moves; m++) {
        int after[MOST_PIECES], value;
        memcpy(after, cells, sizeof after);
        after[s->steps[m].slot] = s->steps[m].target;
        if (s->steps[m].taken < 0)
            value = s->values[position_index(cube, &s->material, 1 - side, after)];
        else if ((value = value_after_capture(s, after, s->steps[m].taken, 1 - side)) < 0)
            return -1;
        if (value == 0)
            drawn = 1;
        else if (value % 2) {
            if (!fastest || value < fastest) fastest = value;
        } else if (value > slowest)
            slowest = value;
    }
    return fastest ? fastest + 1 : drawn ? 0 : slowest + 1;
}

/* verify(size, letters, captures, values, most, variant="cube", compact=0) -> [(index,
   held, expected)]: the first `most` indices whose value disagrees with the values after
   their moves (255 expected: not a stored position). */
PyObject *retrograde_verify(PyObject *self, PyObject *args) {
    int size, viewed, most, compact = 0;
    const char *letters, *variant = "cube";
    PyObject *captures, *faults = NULL;
    Py_buffer views[MOST_PIECES], table;
    Solver s;
    (void)self;
    if (!PyArg_ParseTuple(args, "isO!y*i|si", &size, &letters, &PyList_Type, &captures, &table,
                          &most, &variant, &compact))
        return NULL;
    if (set_up(&s, size, letters, captures, variant, compact, views, &viewed) < 0) goto done;
    if ((uint64_t)table.len != s.material.entries) {
        PyErr_SetString(PyExc_ValueError, "a table of the wrong length");
        goto done;
    }
    s.values = table.buf;
    faults = PyList_New(0);
    int cells[MOST_PIECES], side;
    for (uint64_t index = 0; faults && index < s.material.entries; index++) {
        if ((index & 0xFFFF) == 0 && PyErr_CheckSignals() < 0) {
            Py_CLEAR(faults);
            break;
        }
        int want =
            stored(&s.cube, &s.material, index, cells, &side) ? expected(&s, cells, side) : NO_VALUE;
        if (want < 0) {
            Py_CLEAR(faults);
            break;
        }
        if (want == s.values[index]) continue;
        PyObject *fault = Py_BuildValue("(Kii)", (unsigned long long)index, s.values[index], want);
        if (!fault || PyList_Append(faults, fault) < 0) Py_CLEAR(faults);
        Py_XDECREF(fault);
        if (faults && PyList_GET_SIZE(faults) >= most) break;
    }
done:
    s.values = NULL;
    tear_down(&s, views, viewed);
    PyBuffer_Release(&table);
    return faults;
}

/* widen(size, letters, values, variant="cube") -> bytearray: a version-3 table's values laid
   out by version 1's index (kernel/tables/tablebase.py's widen, the one to read). Where it differs:
   the two indices are two Cubes, the compact one decoding and the other indexing, and Ctrl-C
   is looked for every 2^16 entries. */
PyObject *retrograde_widen(PyObject *self, PyObject *args) {
    int size;
    const char *letters, *variant = "cube";
    Py_buffer table;
    PyObject *result = NULL;
    Cube compact, wide;
    Material narrow_material, wide_material;
    (void)self;
    if (!PyArg_ParseTuple(args, "isy*|s", &size, &letters, &table, &variant)) return NULL;
    memset(&compact, 0, sizeof compact), memset(&wide, 0, sizeof wide);
    int raumschach = tables_variant(size, variant);
    if (raumschach < 0 || make_cube(&compact, size, 1) < 0 || make_cube(&wide, size, 0) < 0 ||
        make_material(&narrow_material, &compact, letters, raumschach) < 0 ||
        make_material(&wide_material, &wide, letters, raumschach) < 0)
        goto done;
    if ((uint64_t)table.len != narrow_material.entries) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values, not version 3's %llu", letters, table.len,
                     (unsigned long long)narrow_material.entries);
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)wide_material.entries);
    if (!result) goto done;
    uint8_t *widened = (uint8_t *)PyByteArray_AS_STRING(result);
    const uint8_t *values = table.buf;
    memset(widened, NO_VALUE, (size_t)wide_material.entries);
    int cells[MOST_PIECES];
    for (uint64_t index = 0; index < narrow_material.entries; index++) {
        if ((index & 0xFFFF) == 0 && PyErr_CheckSignals() < 0) {
            Py_CLEAR(result);
            break;
        }
        if (values[index] == NO_VALUE) continue;
        int side = decode(&compact, &narrow_material, index, cells);
        uint64_t target = position_index(&wide, &wide_material, side, cells);
        if (widened[target] != NO_VALUE) {
            PyErr_Format(PyExc_ValueError, "%s: two entries of version 3 at version 1's index %llu",
                         letters, (unsigned long long)target);
            Py_CLEAR(result);
            break;
        }
        widened[target] = values[index];
    }
done:
    free_cube(&compact), free_cube(&wide);
    PyBuffer_Release(&table);
    return result;
}
