/* A fast C reference for Othello random playouts (docs/performance.md, issue 37 point 3): the
 * same games as games/othello.py's random_playout, one game at a time, as fast as we could make
 * one playout on an AVX-512 x86 CPU.
 *
 * Game: uniformly random legal move each ply (k = (rand >> 32) * count >> 32, the k-th legal
 * cell from the lowest bit, xorshift64* as games/rng.py), a side without a move passes, the game
 * ends when neither side can move, more discs wins. rules=standard: classic Othello; rules=course
 * (argv[2] = "course"): empty start, any empty cell of the central 6x6 is legal (it flips what it
 * brackets, maybe nothing), an outer-ring cell only if it flips, corners never played.
 * With the same seed it plays exactly the games of games.perft.run_playouts(start, make_rng(SEED))
 * (tests/test_othello.py checks the totals).
 *
 * Techniques (each measured against the others on the project's 2-core Xeon, docs/performance.md):
 * - Boards live in vector registers, broadcast to 4 lanes; one 256-bit register holds the four
 *   directions (E, S, SW, SE) towards higher bits, another the four towards lower bits. Every
 *   lane masks the opponent discs to the cells that have a neighbour both ways along its
 *   direction, so shifts never wrap a row.
 * - Legal moves: parallel prefix per lane (two single steps, two double steps) gives the runs of
 *   opponent discs that start next to a mover's disc; one step further is a move. OR across the
 *   lanes, and empty cells only.
 * - Flips: the runs are kept; the placed disc's flips in a lane are the run ending next to it,
 *   found by the same prefix fill backwards from the disc *inside the runs* (no table lookups,
 *   no branches, no check that a mover's disc closes the line: a run always starts at one).
 *   Then an all-lanes OR and three logic ops update both boards.
 * - The k-th legal cell by PDEP + TZCNT (fast on Intel; slow on AMD before Zen 3); POPCNT.
 * - The opponent's moves are generated only when the mover has none (the end-of-game check).
 * Without AVX-512VL (vpternlogq) each three-input op becomes two AVX2 ops; without AVX2 this
 * file does not build.
 *
 * Build and run: gcc -O3 -march=native -o /tmp/othello_ref scripts/othello_ref.c
 *                /tmp/othello_ref SECONDS [standard|course [GAMES [SEED]]]
 * GAMES > 0 plays exactly that many games (SECONDS is then ignored); SEED (default 0) seeds the
 * generator as games.rng.make_rng does. Prints one JSON line:
 *   {"game": "othello", "rules": ..., "playouts_per_s": ..., "mean_length": ...,
 *    "first_player_win": ..., "draw": ..., "second_player_win": ..., "playouts": ..., "plies": ...}
 * (the same statistics as `python -m games playouts othello rules=...`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>

typedef uint64_t u64;
typedef __m256i V4;
static const u64 CENTRAL = 0x007E7E7E7E7E7E00ULL, CORNERS = 0x8100000000000081ULL;
/* cells with a neighbour both ways: along rows, along columns, along both diagonals */
static const u64 ROWS_IN = 0x7E7E7E7E7E7E7E7EULL, COLS_IN = 0x00FFFFFFFFFFFF00ULL,
                 DIAG_IN = 0x007E7E7E7E7E7E00ULL;

#define SHIFT1 _mm256_set_epi64x(9, 7, 8, 1)    /* lanes: E, S, SW, SE (and W, N, NE, NW) */
#define SHIFT2 _mm256_set_epi64x(18, 14, 16, 2)
#define LINES _mm256_set_epi64x(DIAG_IN, DIAG_IN, COLS_IN, ROWS_IN)
#define UP(a, s) _mm256_sllv_epi64(a, s)
#define DOWN(a, s) _mm256_srlv_epi64(a, s)
#define AND _mm256_and_si256
#define OR _mm256_or_si256
#ifdef __AVX512VL__
#define OR_AND(a, b, c) _mm256_ternarylogic_epi64(a, b, c, 0xF8) /* a | (b & c) */
#define OR3(a, b, c) _mm256_ternarylogic_epi64(a, b, c, 0xFE)
#else
#define OR_AND(a, b, c) OR(a, AND(b, c))
#define OR3(a, b, c) OR(a, OR(b, c))
#endif

/* The runs of opponent discs that start next to a mover's disc (up: towards higher bits from
 * the disc, down: towards lower), and the legal cells that flip (not yet limited to empty). */
typedef struct { V4 up, down; u64 moves; } Runs;

static inline Runs runs(V4 P, V4 O) {
    const V4 s = SHIFT1, s2 = SHIFT2;
    V4 line = AND(O, LINES);
    V4 up = AND(line, UP(P, s)), down = AND(line, DOWN(P, s));
    up = OR_AND(up, line, UP(up, s));
    down = OR_AND(down, line, DOWN(down, s));
    V4 pairs_up = AND(line, UP(line, s)), pairs_down = AND(line, DOWN(line, s));
    up = OR_AND(up, pairs_up, UP(up, s2));
    down = OR_AND(down, pairs_down, DOWN(down, s2));
    up = OR_AND(up, pairs_up, UP(up, s2));  /* runs of up to 6 */
    down = OR_AND(down, pairs_down, DOWN(down, s2));
    V4 m = OR(UP(up, s), DOWN(down, s));
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    x = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
    Runs r = {up, down, (u64)_mm_cvtsi128_si64(x)};
    return r;
}

/* Discs flipped by a disc on `bit`: in each lane, the run that ends next to it (filled back
 * from the disc inside the runs), ORed over all lanes into every lane. */
static inline V4 flips(const Runs *r, u64 bit) {
    const V4 s = SHIFT1, s2 = SHIFT2;
    V4 B = _mm256_set1_epi64x((long long)bit);
    V4 a = AND(r->up, DOWN(B, s)), b = AND(r->down, UP(B, s));
    a = OR_AND(a, r->up, DOWN(a, s));
    b = OR_AND(b, r->down, UP(b, s));
    V4 pairs_a = AND(r->up, DOWN(r->up, s)), pairs_b = AND(r->down, UP(r->down, s));
    a = OR_AND(a, pairs_a, DOWN(a, s2));
    b = OR_AND(b, pairs_b, UP(b, s2));
    a = OR_AND(a, pairs_a, DOWN(a, s2));
    b = OR_AND(b, pairs_b, UP(b, s2));
    V4 f = OR(a, b);
    f = OR(f, _mm256_permute4x64_epi64(f, 0x4E));
    return OR(f, _mm256_shuffle_epi32(f, 0x4E));
}

static inline u64 kth_bit(u64 bits, int k) {  /* the k-th (from 0) set bit, as a bit */
#ifdef __BMI2__
    return _pdep_u64(1ULL << k, bits);
#else
    while (k--) bits &= bits - 1;
    return bits & -bits;
#endif
}

/* One random game from the start; returns 1 first player won, 2 second, 3 draw; adds plies. */
static int playout(int course, long *plies, u64 *rng_state) {
    u64 rng = *rng_state, free = course ? CENTRAL : 0, playable = course ? ~CORNERS : ~0ULL;
    u64 own = course ? 0 : (1ULL << 28) | (1ULL << 35), opp = course ? 0 : (1ULL << 27) | (1ULL << 36);
    u64 empty = ~(own | opp);
    V4 P = _mm256_set1_epi64x((long long)own), O = _mm256_set1_epi64x((long long)opp);
    int mover = 0;
    long n = 0;
    Runs r = runs(P, O);
    u64 m = (r.moves | free) & empty & playable;
    for (;;) {
        if (m) {
            rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
            u64 k = (((rng * 0x2545F4914F6CDD1DULL) >> 32) * (u64)__builtin_popcountll(m)) >> 32;
            u64 bit = kth_bit(m, (int)k);
            V4 f = flips(&r, bit);
            P = OR3(P, f, _mm256_set1_epi64x((long long)bit));
            O = _mm256_andnot_si256(f, O);
            empty ^= bit;
        }
        V4 t = P; P = O; O = t; mover ^= 1; n++;
        r = runs(P, O);
        m = (r.moves | free) & empty & playable;
        if (!m && !((runs(O, P).moves | free) & empty & playable)) break;
    }
    *plies += n;
    *rng_state = rng;
    own = (u64)_mm_cvtsi128_si64(_mm256_castsi256_si128(P));
    opp = (u64)_mm_cvtsi128_si64(_mm256_castsi256_si128(O));
    int black = __builtin_popcountll(mover == 0 ? own : opp);
    int white = __builtin_popcountll(mover == 0 ? opp : own);
    return black > white ? 1 : black < white ? 2 : 3;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    int course = argc > 2 && strcmp(argv[2], "course") == 0;
    long fixed = argc > 3 ? atol(argv[3]) : 0;
    u64 seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
    u64 rng = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;  /* games.rng.make_rng */
    if (!rng) rng = 1;
    long count[4] = {0}, plies = 0, games = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    double elapsed = 0;
    do {
        long batch = fixed > 0 ? (fixed - games < 4096 ? fixed - games : 4096) : 4096;
        for (long i = 0; i < batch; i++) count[playout(course, &plies, &rng)]++;
        games += batch;
        clock_gettime(CLOCK_MONOTONIC, &b);
        elapsed = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
    } while (fixed > 0 ? games < fixed : elapsed < seconds);
    printf("{\"game\": \"othello\", \"rules\": \"%s\", \"playouts_per_s\": %.0f, \"mean_length\": %.3f, "
           "\"first_player_win\": %.5f, \"draw\": %.5f, \"second_player_win\": %.5f, "
           "\"playouts\": %ld, \"plies\": %ld}\n",
           course ? "course" : "standard", games / elapsed, (double)plies / games,
           (double)count[1] / games, (double)count[3] / games, (double)count[2] / games, games, plies);
    return 0;
}
