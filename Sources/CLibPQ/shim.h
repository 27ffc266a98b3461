#include <libpq-fe.h>
#include <postgres_ext.h>
/* The PG_DIAG_* field codes are character macros, which Swift does not import. */
static inline int swpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int swpq_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int swpq_diag_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int swpq_diag_hint(void) { return PG_DIAG_MESSAGE_HINT; }
static inline int swpq_diag_constraint(void) { return PG_DIAG_CONSTRAINT_NAME; }
