// The one C header of the project. It pulls in libwebsockets and OpenSSL and turns the
// macros Swift cannot import into prefixed static inline helpers.
#ifndef REMOTE_MODAL_LWS_SHIM_H
#define REMOTE_MODAL_LWS_SHIM_H

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Head room lws_write needs before every payload.
static inline size_t rm_lws_pre(void) { return LWS_PRE; }

static inline uint64_t rm_option_do_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
/// lws_set_timeout's "close it at the next service turn" (LWS_TO_KILL_ASYNC).
static inline int rm_to_kill_async(void) { return LWS_TO_KILL_ASYNC; }
static inline uint64_t rm_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
static inline uint64_t rm_option_fail_on_bind(void) { return LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND; }
static inline uint64_t rm_option_no_system_states(void) { return LWS_SERVER_OPTION_NO_LWS_SYSTEM_STATES; }
static inline uint64_t rm_option_disable_os_ca_certs(void) { return LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS; }
/// Run on libev (with `foreign_loops`: on a loop the caller owns) instead of poll().
static inline uint64_t rm_option_libev(void) { return LWS_SERVER_OPTION_LIBEV; }

/// The calling thread's kernel id (its entry in /proc/self/task); Glibc's gettid does not import.
static inline int rm_kernel_thread_id(void) { return (int)syscall(SYS_gettid); }

/// Where lws looks for its event-library plugins (`libwebsockets-evlib_ev.so`).
static inline const char *rm_lws_install_libdir(void) { return LWS_INSTALL_LIBDIR; }

/// OpenSSL options that switch off everything older than TLS 1.2.
static inline long rm_ssl_no_legacy_protocols(void) {
    return SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION;
}

/// `LWS_WRITE_RAW` (a macro): bytes sent as they are, here whole frames built by the caller.
static inline enum lws_write_protocol rm_write_raw(void) { return LWS_WRITE_RAW; }

static inline int rm_client_flag_use_ssl(void) { return LCCSCF_USE_SSL; }

/// Stores an integer connection id in the wsi's opaque pointer (no Swift references there).
static inline void rm_set_connection_id(struct lws *wsi, uint64_t id) {
    lws_set_opaque_user_data(wsi, (void *)(uintptr_t)id);
}

static inline uint64_t rm_connection_id(struct lws *wsi) {
    return (uint64_t)(uintptr_t)lws_get_opaque_user_data(wsi);
}

/// A once-a-second lws timer that only re-arms itself (see `rm_lws_heartbeat_start`).
struct rm_lws_heartbeat {
    lws_sorted_usec_list_t sul;
    struct lws_context *context;
};

static void rm_lws_heartbeat_fire(lws_sorted_usec_list_t *sul) {
    struct rm_lws_heartbeat *heartbeat = lws_container_of(sul, struct rm_lws_heartbeat, sul);
    lws_sul_schedule(heartbeat->context, 0, &heartbeat->sul, rm_lws_heartbeat_fire, LWS_US_PER_SEC);
}

/// Keeps lws's own timer on libev from sleeping past a second. NB: lws 4.1's libev glue
/// re-arms its one timer with ev_timer_set + ev_timer_start on a watcher that may be
/// active, which libev ignores: a timeout set earlier than the one armed (a 2 s cut, a 5 s
/// close handshake) would wait for it (a 20 s ping). With this timer always due within a
/// second, lws's timer fires at least once a second and re-arms from the sorted list. One
/// wake-up a second, whatever the number of connections. Service thread only.
static inline void rm_lws_heartbeat_start(struct rm_lws_heartbeat *heartbeat, struct lws_context *context) {
    memset(heartbeat, 0, sizeof(*heartbeat));
    heartbeat->context = context;
    lws_sul_schedule(context, 0, &heartbeat->sul, rm_lws_heartbeat_fire, LWS_US_PER_SEC);
}

static inline void rm_lws_heartbeat_stop(struct rm_lws_heartbeat *heartbeat) { lws_sul_cancel(&heartbeat->sul); }

#endif
