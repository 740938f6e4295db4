// libev, the event loop libwebsockets runs on as a "foreign" loop: the service thread owns
// it, turns it once per loop turn and destroys it after the context. Only what the service
// loop needs, as prefixed helpers (libev's flags are macros and enums).
#ifndef REMOTE_MODAL_EV_SHIM_H
#define REMOTE_MODAL_EV_SHIM_H

#include <ev.h>

/// A new loop with libev's best backend for the platform (epoll on Linux), or NULL. It
/// leaves the signal mask alone (the process's signal handling is not the loop's).
static inline struct ev_loop *rm_ev_loop_new(void) { return ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK); }

/// One turn: waits for at least one event or due timer, runs the callbacks, returns.
static inline int rm_ev_run_once(struct ev_loop *loop) { return ev_run(loop, EVRUN_ONCE); }

static inline void rm_ev_loop_destroy(struct ev_loop *loop) { ev_loop_destroy(loop); }

/// Whether the loop runs on epoll (the backend the measurements were made with).
static inline int rm_ev_backend_is_epoll(struct ev_loop *loop) { return ev_backend(loop) == EVBACKEND_EPOLL; }

#endif
