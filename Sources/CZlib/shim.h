#include <zlib.h>
/* deflateInit2/inflateInit2 are function-like macros that Swift cannot import. */
static inline int swz_deflateInit2(z_streamp s, int level, int wbits) { return deflateInit2(s, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY); }
static inline int swz_inflateInit2(z_streamp s, int wbits) { return inflateInit2(s, wbits); }
