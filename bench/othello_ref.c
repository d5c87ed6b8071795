/* A competitive C reference for Othello random playouts (docs/performance.md): bitboards,
 * parallel-prefix move generation (as games/othello.py), flips from ray tables, the k-th
 * legal move by PDEP, xorshift64*, hardware popcount.
 * Rules as games/othello.py (rules=standard, or rules=course with argv[2] = "course").
 * Build and run: gcc -O3 -march=native -o /tmp/othello_ref bench/othello_ref.c
 *                /tmp/othello_ref SECONDS [standard|course]
 * Prints one JSON line: playouts/s and the outcome rates (same statistics as `games playouts`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>

typedef uint64_t u64;
static const u64 CENTRAL = 0x007E7E7E7E7E7E00ULL, CORNERS = 0x8100000000000081ULL;

/* Cells of `line` in unbroken runs that start next to a seed, both ways along `shift`:
 * two single steps, then two double steps (parallel prefix), reach the longest run (6). */
static inline u64 reach(u64 own, u64 line, int shift) {
    u64 f = line & (own << shift), b = line & (own >> shift);
    f |= line & (f << shift);
    b |= line & (b >> shift);
    u64 pf = line & (line << shift), pb = pf >> shift;
    int dbl = shift + shift;
    f |= pf & (f << dbl);
    b |= pb & (b >> dbl);
    f |= pf & (f << dbl);
    b |= pb & (b >> dbl);
    return (f << shift) | (b >> shift);
}

static inline u64 moves(u64 own, u64 opp) {
    u64 sideways = opp & 0x7E7E7E7E7E7E7E7EULL;  /* runs kept here never wrap a row */
    return (reach(own, sideways, 1) | reach(own, opp, 8) | reach(own, sideways, 7)
            | reach(own, sideways, 9)) & ~(own | opp);
}

/* Flips along the rays from the square: the opponent discs before the first cell that is not
 * one, if that cell is the mover's (ray tables, nearest cell by lowest or highest bit). */
static u64 RAY[8][64];
static void init_rays(void) {
    static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dc[8] = {1, -1, 0, 1, -1, 1, 0, -1};
    for (int d = 0; d < 8; d++)
        for (int cell = 0; cell < 64; cell++) {
            int r = cell / 8 + dr[d], c = cell % 8 + dc[d];
            for (; r >= 0 && r < 8 && c >= 0 && c < 8; r += dr[d], c += dc[d])
                RAY[d][cell] |= 1ULL << (r * 8 + c);
        }
}

static inline u64 flips(u64 own, u64 opp, int square) {
    u64 all = 0;
    for (int d = 0; d < 4; d++) {  /* towards higher bits: nearest = lowest */
        u64 ray = RAY[d][square], stop = ray & ~opp, first = stop & -stop;
        if (first & own) all |= ray & (first - 1);
    }
    for (int d = 4; d < 8; d++) {  /* towards lower bits: nearest = highest */
        u64 ray = RAY[d][square], stop = (ray & ~opp) | 1, first = 1ULL << (63 - __builtin_clzll(stop));
        if (first & own & ray) all |= ray & ~((first << 1) - 1);
    }
    return all;
}

static u64 rng = 0x2545F4914F6CDD1DULL;
static inline u64 next_u64(void) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

static inline u64 legal(u64 own, u64 opp, u64 free, u64 playable) {
    return (moves(own, opp) | (free & ~(own | opp))) & playable;
}

/* One random game from the start; returns 1 first player won, 2 second, 3 draw; adds plies. */
static int playout(int course, long *plies) {
    u64 own, opp, free = course ? CENTRAL : 0, playable = course ? ~CORNERS : ~0ULL;
    int mover = 0;
    if (course) { own = 0; opp = 0; }
    else { own = (1ULL << 28) | (1ULL << 35); opp = (1ULL << 27) | (1ULL << 36); }
    u64 m = legal(own, opp, free, playable);
    for (;;) {
        if (m) {
            int n = __builtin_popcountll(m);
            int k = (int)(((next_u64() >> 32) * (u64)n) >> 32);
            int square = __builtin_ctzll(_pdep_u64(1ULL << k, m));  /* the k-th legal cell */
            u64 f = flips(own, opp, square);
            own |= (1ULL << square) | f; opp &= ~f;
        }
        u64 t = own; own = opp; opp = t; mover ^= 1; (*plies)++;
        m = legal(own, opp, free, playable);
        if (!m && !legal(opp, own, free, playable)) break;
    }
    int black = __builtin_popcountll(mover == 0 ? own : opp);
    int white = __builtin_popcountll(mover == 0 ? opp : own);
    return black > white ? 1 : black < white ? 2 : 3;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    int course = argc > 2 && strcmp(argv[2], "course") == 0;
    init_rays();
    long count[4] = {0}, plies = 0, games = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    double elapsed = 0;
    do {
        for (int i = 0; i < 4096; i++) count[playout(course, &plies)]++;
        games += 4096;
        clock_gettime(CLOCK_MONOTONIC, &b);
        elapsed = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
    } while (elapsed < seconds);
    printf("{\"game\": \"othello\", \"rules\": \"%s\", \"playouts_per_s\": %.0f, \"mean_length\": %.3f, "
           "\"first_player_win\": %.5f, \"draw\": %.5f, \"second_player_win\": %.5f}\n",
           course ? "course" : "standard", games / elapsed, (double)plies / games,
           (double)count[1] / games, (double)count[3] / games, (double)count[2] / games);
    return 0;
}
