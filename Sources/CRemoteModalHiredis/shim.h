// Debian's hiredis 0.14 for the Redis module (its only importer). redisCommand is
// variadic and does not import into Swift: these helpers wrap the argv forms and the
// timeval arguments.
#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/socket.h>
#include <sys/time.h>

static inline struct timeval chiredis_timeval(int milliseconds) {
    struct timeval tv;
    tv.tv_sec = milliseconds / 1000;
    tv.tv_usec = (milliseconds % 1000) * 1000;
    return tv;
}

/// Connects with a timeout; NULL only when hiredis could not allocate a context.
static inline redisContext *chiredis_connect(const char *host, int port, int timeout_ms) {
    return redisConnectWithTimeout(host, port, chiredis_timeval(timeout_ms));
}

/// Sets the read and write timeout of a connected context (0 means none). REDIS_OK or REDIS_ERR.
static inline int chiredis_set_timeout(redisContext *context, int timeout_ms) {
    return redisSetTimeout(context, chiredis_timeval(timeout_ms));
}

/// Sends one command and reads its reply; NULL on an I/O or protocol error (see context->err).
static inline redisReply *chiredis_command(redisContext *context, int argc, const char **argv, const size_t *lengths) {
    return (redisReply *)redisCommandArgv(context, argc, argv, lengths);
}

/// Reads the next reply (pub/sub messages); NULL on error (see context->err).
static inline redisReply *chiredis_next_reply(redisContext *context) {
    void *reply = NULL;
    if (redisGetReply(context, &reply) != REDIS_OK) return NULL;
    return (redisReply *)reply;
}

/// Shuts the socket down so a thread blocked reading it returns (stopping a subscriber).
static inline void chiredis_shutdown(redisContext *context) {
    if (context->fd >= 0) shutdown(context->fd, SHUT_RDWR);
}

#endif
