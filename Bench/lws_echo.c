/*
 * lws-echo: a WebSocket echo server written directly on libwebsockets, with nothing of
 * the project's in between. It is the transport's floor in the modal benchmark
 * (scripts/bench-modal): what lws itself costs per message on this machine.
 *
 *   cc -O2 Bench/lws_echo.c $(pkg-config --cflags --libs libwebsockets) -o lws-echo
 *   lws-echo PORT
 *
 * Messages are reassembled from fragments, queued per connection and written back one
 * frame per SERVER_WRITEABLE, as the project's transport does.
 */
#include <libwebsockets.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct queued {
    struct queued *next;
    size_t length;
    int binary;
    unsigned char bytes[]; /* LWS_PRE bytes of headroom, then the payload */
};

struct connection {
    struct queued *head, *tail;
    unsigned char *partial;
    size_t partial_length, partial_capacity;
};

static volatile sig_atomic_t interrupted;
static struct lws_context *context;

static int enqueue_partial(struct lws *wsi, struct connection *c) {
    struct queued *message = malloc(sizeof *message + LWS_PRE + c->partial_length);
    if (!message) return -1;
    message->next = NULL;
    message->length = c->partial_length;
    message->binary = lws_frame_is_binary(wsi);
    if (c->partial_length) memcpy(message->bytes + LWS_PRE, c->partial, c->partial_length);
    c->partial_length = 0;
    if (c->tail) c->tail->next = message; else c->head = message;
    c->tail = message;
    lws_callback_on_writable(wsi);
    return 0;
}

static int echo(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t length) {
    struct connection *c = user;
    switch (reason) {
    case LWS_CALLBACK_RECEIVE:
        if (c->partial_length + length > c->partial_capacity) {
            size_t capacity = (c->partial_length + length) * 2;
            unsigned char *grown = realloc(c->partial, capacity);
            if (!grown) return -1;
            c->partial = grown;
            c->partial_capacity = capacity;
        }
        if (length) memcpy(c->partial + c->partial_length, in, length);
        c->partial_length += length;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) return enqueue_partial(wsi, c);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        struct queued *message = c->head;
        if (!message) return 0;
        int written = lws_write(wsi, message->bytes + LWS_PRE, message->length,
                                message->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
        if (written < (int)message->length) return -1;
        c->head = message->next;
        if (!c->head) c->tail = NULL;
        free(message);
        if (c->head) lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        while (c->head) {
            struct queued *next = c->head->next;
            free(c->head);
            c->head = next;
        }
        c->tail = NULL;
        free(c->partial);
        c->partial = NULL;
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"echo", echo, sizeof(struct connection), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void stop(int signal_number) {
    (void)signal_number;
    interrupted = 1;
    lws_cancel_service(context);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: lws-echo PORT\n");
        return 2;
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = atoi(argv[1]);
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.gid = -1;
    info.uid = -1;
    /* Exit when the port is taken, rather than run without listening. */
    info.options = LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    context = lws_create_context(&info);
    if (!context) {
        fprintf(stderr, "lws-echo: could not create the context\n");
        return 1;
    }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    while (!interrupted && lws_service(context, 0) >= 0) {
    }
    lws_context_destroy(context);
    return 0;
}
