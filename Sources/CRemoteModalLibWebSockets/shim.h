// The one C header of the project. It pulls in libwebsockets and OpenSSL and turns the
// macros Swift cannot import into prefixed static inline helpers.
#ifndef REMOTE_MODAL_LWS_SHIM_H
#define REMOTE_MODAL_LWS_SHIM_H

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <string.h>

/// Head room lws_write needs before every payload.
static inline size_t rm_lws_pre(void) { return LWS_PRE; }

static inline uint64_t rm_option_do_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
static inline uint64_t rm_option_validate_utf8(void) { return LWS_SERVER_OPTION_VALIDATE_UTF8; }
static inline uint64_t rm_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
static inline uint64_t rm_option_fail_on_bind(void) { return LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND; }
static inline uint64_t rm_option_no_system_states(void) { return LWS_SERVER_OPTION_NO_LWS_SYSTEM_STATES; }
static inline uint64_t rm_option_disable_os_ca_certs(void) { return LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS; }

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

#endif
