#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast macro that Swift cannot import. */
static inline sqlite3_destructor_type swsqlite_transient(void) { return SQLITE_TRANSIENT; }
/* sqlite3_config is variadic. Memory statistics take a global mutex on every allocation;
   nothing here reads them. Must run before the library initialises (the first open). */
static inline int swsqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
