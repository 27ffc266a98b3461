#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU; its headers clash with Foundation's _FoundationICU. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
