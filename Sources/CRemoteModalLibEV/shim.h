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

/// Feeds a write event for `fd` to the watchers that wait for one (libwebsockets' write
/// watcher, once lws has asked for `WRITEABLE`): fed outside the loop's dispatch, they run
/// at `rm_ev_invoke_pending`. No watcher waiting: nothing happens.
static inline void rm_ev_feed_write(struct ev_loop *loop, int fd) { ev_feed_fd_event(loop, fd, EV_WRITE); }

/// Runs the callbacks of the events fed outside the loop's own dispatch; returns whether
/// there were any.
static inline int rm_ev_invoke_pending(struct ev_loop *loop) {
    if (ev_pending_count(loop) == 0) return 0;
    ev_invoke_pending(loop);
    return 1;
}

/// A one-shot timer whose only work is to end the loop's wait (`rm_ev_wake_in`): the
/// keepalive spreads a second's pings over it instead of sending them in one burst.
struct rm_ev_wake {
    ev_timer timer;
};

static void rm_ev_wake_fire(struct ev_loop *loop, ev_timer *timer, int events) {
    (void)loop;
    (void)timer;
    (void)events;
}

static inline void rm_ev_wake_init(struct rm_ev_wake *wake) { ev_timer_init(&wake->timer, rm_ev_wake_fire, 0., 0.); }

/// Arms the wake-up `seconds` from now unless one is already armed (an earlier one stands).
static inline void rm_ev_wake_in(struct ev_loop *loop, struct rm_ev_wake *wake, double seconds) {
    if (ev_is_active(&wake->timer)) return;
    ev_timer_set(&wake->timer, seconds, 0.);
    ev_timer_start(loop, &wake->timer);
}

static inline void rm_ev_wake_stop(struct ev_loop *loop, struct rm_ev_wake *wake) { ev_timer_stop(loop, &wake->timer); }

#endif
