/* rng.h - the sandbox's deterministic random numbers (splitmix64).
 *
 * One 64-bit state per sandbox, seeded by the host, drives $RANDOM, shuf,
 * sort -R and mktemp, so a run is reproducible for a given seed. */
#ifndef MSB_RNG_H
#define MSB_RNG_H

#include <stdint.h>

/* Advances *state and returns the next 64 random bits. */
uint64_t rng_next(uint64_t *state);
/* Uniform value in [0, n) without modulo bias; n > 0. */
uint64_t rng_below(uint64_t *state, uint64_t n);

#endif
