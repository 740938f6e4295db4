/*
 * tcp-pingpong: the physical floor of the modal benchmark (scripts/bench-modal): plain
 * TCP on loopback, no WebSocket framing, no JSON. Each of CONNECTIONS sends SIZE bytes and
 * waits for them to come back, again and again; one epoll thread on each side.
 *
 *   tcp-pingpong server PORT
 *   tcp-pingpong client PORT CONNECTIONS SECONDS SIZE [LABEL]
 *
 * The client measures for SECONDS after a one-second warm-up and prints one
 * tab-separated row: label, round trips a second, p50, p99, p99.9 (microseconds).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void no_delay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static _Noreturn void serve(int port) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(listener, 4096) < 0) fail("listen");
    int poller = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(poller, EPOLL_CTL_ADD, listener, &event);
    static char buffer[65536];
    struct epoll_event ready[256];
    for (;;) {
        int count = epoll_wait(poller, ready, 256, -1);
        for (int i = 0; i < count; i++) {
            int fd = ready[i].data.fd;
            if (fd == listener) {
                int client = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
                if (client < 0) continue;
                no_delay(client);
                struct epoll_event added = {.events = EPOLLIN, .data.fd = client};
                epoll_ctl(poller, EPOLL_CTL_ADD, client, &added);
                continue;
            }
            ssize_t got = read(fd, buffer, sizeof buffer);
            if (got <= 0) {
                if (got < 0 && errno == EAGAIN) continue;
                close(fd);
                continue;
            }
            /* Small messages on loopback: the send buffer takes them whole. */
            if (write(fd, buffer, got) != got) close(fd);
        }
    }
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double rank(double *sorted, size_t count, double fraction) {
    if (!count) return 0;
    size_t index = (size_t)(fraction * count + 0.999999);
    if (index < 1) index = 1;
    if (index > count) index = count;
    return sorted[index - 1];
}

struct peer {
    int fd;
    size_t received;
    double sent_at;
};

static int drive(int port, int connections, double seconds, size_t size, const char *label) {
    struct peer *peers = calloc(connections, sizeof *peers);
    char *payload = malloc(size), buffer[65536];
    memset(payload, 'x', size);
    int poller = epoll_create1(0);
    for (int i = 0; i < connections; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) fail("connect");
        no_delay(fd);
        peers[i].fd = fd;
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(poller, EPOLL_CTL_ADD, fd, &event);
    }
    size_t capacity = 1 << 20, count = 0;
    double *samples = malloc(capacity * sizeof *samples);
    double start = now_us(), measure_from = start + 1e6, end = measure_from + seconds * 1e6;
    for (int i = 0; i < connections; i++) {
        peers[i].sent_at = now_us();
        if (write(peers[i].fd, payload, size) != (ssize_t)size) fail("write");
    }
    struct epoll_event ready[256];
    while (now_us() < end) {
        int ready_count = epoll_wait(poller, ready, 256, 100);
        for (int r = 0; r < ready_count; r++) {
            struct peer *peer = &peers[ready[r].data.u32];
            ssize_t got = read(peer->fd, buffer, sizeof buffer);
            if (got <= 0) fail("read");
            peer->received += got;
            if (peer->received < size) continue;
            peer->received -= size;
            double now = now_us();
            if (now >= measure_from && now < end) {
                if (count == capacity) {
                    capacity *= 2;
                    samples = realloc(samples, capacity * sizeof *samples);
                }
                samples[count++] = now - peer->sent_at;
            }
            peer->sent_at = now;
            if (write(peer->fd, payload, size) != (ssize_t)size) fail("write");
        }
    }
    qsort(samples, count, sizeof *samples, compare);
    printf("%s\t%.0f\t%.1f\t%.1f\t%.1f\n", label, count / seconds, rank(samples, count, 0.5),
           rank(samples, count, 0.99), rank(samples, count, 0.999));
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "server")) serve(atoi(argv[2]));
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "client"))
        return drive(atoi(argv[2]), atoi(argv[3]), atof(argv[4]), (size_t)atol(argv[5]), argc == 7 ? argv[6] : "tcp");
    fprintf(stderr, "usage: tcp-pingpong server PORT | client PORT CONNECTIONS SECONDS SIZE [LABEL]\n");
    return 2;
}
