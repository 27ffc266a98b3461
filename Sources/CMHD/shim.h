#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic: Swift
   cannot call them. */

/* Where libmicrohttpd's own messages go: `write` gets each one, formatted, with `context`. */
struct swmhd_log_target {
    void (*write)(void *context, const char *message);
    void *context;
};

static inline void swmhd_log(void *target, const char *format, va_list arguments) {
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    struct swmhd_log_target *log = target;
    log->write(log->context, message);
}

/* Unescapes `%XX` in a URL or argument in place, as libmicrohttpd's own unescaping does, except
   `%00`, which stays as written: unescaped, it ended the C string there, and `/ingest%00junk`
   was served as `/ingest`. Returns the new length. */
static inline size_t swmhd_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void) context; (void) connection;
    char *read = text, *write = text;
    while (*read) {
        int high = -1, low = -1;
        if (read[0] == '%' && read[1] && read[2]) {
            char h = read[1], l = read[2];
            high = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            low = l >= '0' && l <= '9' ? l - '0' : l >= 'a' && l <= 'f' ? l - 'a' + 10 : l >= 'A' && l <= 'F' ? l - 'A' + 10 : -1;
        }
        if (high >= 0 && low >= 0 && (high | low) != 0) {
            *write++ = (char) (high * 16 + low);
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = 0;
    return (size_t) (write - text);
}

/* The TLS versions and ciphers the push and admin listeners accept (a GnuTLS priority string). */
#define SWMHD_TLS_PRIORITIES "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-AES-128-CBC:-AES-256-CBC" \
    ":-CAMELLIA-128-CBC:-CAMELLIA-256-CBC:-3DES-CBC"

/* Starts a daemon on `address`; HTTPS when `key_pem` and `cert_pem` are both given (pass
   NULL for both to serve plain HTTP). A `per_address_limit` of 0 means no per-address limit.
   A `listen_socket` of 0 or more is a socket already bound and listening, served instead of
   binding `address` (libmicrohttpd closes it when the start fails); -1: bind `address`.
   libmicrohttpd's own messages go to `log`. */
static inline struct MHD_Daemon *swmhd_start(unsigned int flags, const struct sockaddr *address,
        MHD_AccessHandlerCallback handler, void *handler_context,
        MHD_RequestCompletedCallback completed, void *completed_context,
        MHD_NotifyConnectionCallback connection_notified, void *connection_context,
        unsigned int connection_limit, unsigned int per_address_limit,
        unsigned int timeout_seconds, size_t memory_limit,
        const char *key_pem, const char *cert_pem, int listen_socket, struct swmhd_log_target *log) {
    int tls = key_pem != NULL && cert_pem != NULL;
    struct MHD_OptionItem tls_options[] = {
        { tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *) key_pem },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *) cert_pem },
        /* GnuTLS's default (NORMAL) takes TLS 1.0 and 1.1, RSA key exchange (no forward secrecy)
           and CBC ciphers: TLS 1.2 and 1.3 with ECDHE and AEAD ciphers only (no DH parameters
           are set, so DHE is never chosen), which every phone and client of the last ten years
           speaks. */
        { MHD_OPTION_HTTPS_PRIORITIES, 0, (void *) SWMHD_TLS_PRIORITIES },
        { MHD_OPTION_END, 0, NULL },
    };
    struct MHD_OptionItem listen_options[] = {
        { listen_socket >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_END, listen_socket, NULL },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(flags | (tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_EXTERNAL_LOGGER, swmhd_log, (void *) log, /* first, as MHD asks (0.9.75 warns anyway) */
                            MHD_OPTION_UNESCAPE_CALLBACK, swmhd_unescape, NULL,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notified, connection_context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_ARRAY, tls_options,
                            MHD_OPTION_ARRAY, listen_options,
                            MHD_OPTION_END);
}

/* The port the daemon is bound to (useful after binding port 0). */
static inline uint16_t swmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* The connection's socket, or -1. */
static inline int swmhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The client's IPv4 address as text into `text` (empty when unknown or not IPv4). */
static inline void swmhd_connection_peer(struct MHD_Connection *connection, char *text, size_t size) {
    text[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr || info->client_addr->sa_family != AF_INET) return;
    inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, text, (socklen_t)size);
}

/* Counts the request headers named `name` (case-insensitive): libmicrohttpd's lookup returns the
   first of several. */
struct swmhd_header_count {
    const char *name;
    unsigned int count;
};

static inline enum MHD_Result swmhd_count_header(void *context, enum MHD_ValueKind kind, const char *key,
                                                 const char *value) {
    (void)kind;
    (void)value;
    struct swmhd_header_count *counted = (struct swmhd_header_count *)context;
    if (key && strcasecmp(key, counted->name) == 0) counted->count += 1;
    return MHD_YES;
}

static inline unsigned int swmhd_header_count(struct MHD_Connection *connection, const char *name) {
    struct swmhd_header_count counted = { name, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, swmhd_count_header, &counted);
    return counted.count;
}
