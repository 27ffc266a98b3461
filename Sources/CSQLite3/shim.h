#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast macro that Swift cannot import. */
static inline sqlite3_destructor_type swsqlite_transient(void) { return SQLITE_TRANSIENT; }
