#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast macro that Swift cannot import. */
static inline sqlite3_destructor_type swsqlite_transient(void) { return SQLITE_TRANSIENT; }
/* sqlite3_config is variadic: Swift cannot call it. Turns off the allocation statistics, whose
   global mutex every sqlite3_malloc and sqlite3_free takes; SQLITE_MISUSE once SQLite is initialized. */
static inline int swsqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
