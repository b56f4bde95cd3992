/* rng.c - splitmix64: tiny, fast, and good enough for shuffles and names
 * (not for secrets: nothing in the sandbox needs cryptographic keys). */
#include "rng.h"

uint64_t rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t rng_below(uint64_t *state, uint64_t n) {
  /* reject the top partial block so every residue is equally likely */
  uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
  do x = rng_next(state);
  while (x >= limit);
  return x % n;
}
