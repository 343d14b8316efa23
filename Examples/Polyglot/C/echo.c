// An Appex extension in C, libc only, written from docs/protocol.md alone (the frames and the
// handshake are in appex.h).
//
// It serves the echo test point (protocol.md 15.2): every request is answered with its own bytes;
// a request that holds "delay_ms":N is answered N milliseconds later, unless the host cancels it
// first (then it is never answered). Large payloads arrive and leave in sealed memfds. It refuses
// distributed-actor calls, ends the connection on a frame it does not understand, and exits when
// the host goes.
//
// Build:  cc -O2 -o CEcho echo.c
// Bundle: appex bundle --executable CEcho --output HOST.app/Extensions/CEcho.appex
//         --identifier com.example.cecho --binding HOST.POINT --key team.key
#include "appex.h"

enum { MAX_PENDING = 64 };

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/// A request waiting for its delay to pass.
struct pending {
    uint64_t id;
    uint8_t *payload;
    size_t length;
    int64_t due_ms;
};
static struct pending pending[MAX_PENDING];
static int pending_count;

// MARK: - Serving the echo point

/// The N of "delay_ms":N in a request, or 0.
static long delay_of(const uint8_t *payload, size_t length) {
    static const char key[] = "\"delay_ms\":";
    size_t k = sizeof key - 1;
    for (size_t i = 0; i + k < length; i++) {
        if (memcmp(payload + i, key, k) == 0) return strtol((const char *)payload + i + k, NULL, 10);
    }
    return 0;
}

static void answer_due(void) {
    int64_t now = now_ms();
    for (int i = 0; i < pending_count;) {
        if (pending[i].due_ms <= now) {
            send_frame(REPLY, pending[i].id, pending[i].payload, pending[i].length);
            free(pending[i].payload);
            pending[i] = pending[--pending_count];
        } else {
            i++;
        }
    }
}

static int next_wait_ms(void) {
    if (pending_count == 0) return -1;
    int64_t soonest = pending[0].due_ms;
    for (int i = 1; i < pending_count; i++)
        if (pending[i].due_ms < soonest) soonest = pending[i].due_ms;
    int64_t wait = soonest - now_ms();
    return wait < 0 ? 0 : (int)wait;
}

static void handle(uint8_t kind, uint64_t id, uint8_t *payload, size_t length) {
    switch (kind) {
    case REQUEST: {
        long delay = delay_of(payload, length);
        if (delay <= 0) {
            send_frame(REPLY, id, payload, length);
            break;
        }
        if (pending_count == MAX_PENDING) {
            static const char busy[] = "busy: too many delayed requests";
            send_frame(FAILURE, id, (const uint8_t *)busy, sizeof busy - 1);
            break;
        }
        pending[pending_count++] = (struct pending){ id, payload, length, now_ms() + delay };
        return;  // kept: answered when due
    }
    case CANCEL:  // the host no longer wants the answer: drop it, say nothing
        for (int i = 0; i < pending_count; i++) {
            if (pending[i].id == id) {
                free(pending[i].payload);
                pending[i] = pending[--pending_count];
                break;
            }
        }
        break;
    case INVOCATION: {
        static const char refusal[] = "remote-failure: this extension serves no distributed actors";
        send_frame(FAILURE, id, (const uint8_t *)refusal, sizeof refusal - 1);
        break;
    }
    case GOODBYE:
        exit(0);
    default:  // hello, reply, failure: nothing this extension asked for
        break;
    }
    free(payload);
}

int main(void) {
    appex_name = "cecho";
    appex_start();

    // Serve until the host closes the connection, answering delayed requests when due.
    for (;;) {
        struct pollfd watch = { connection, POLLIN, 0 };
        int ready = poll(&watch, 1, next_wait_ms());
        if (ready < 0 && errno != EINTR) fail("poll failed");
        if (ready > 0) {
            uint8_t kind, *payload;
            uint64_t id;
            size_t length;
            if (!receive(&kind, &id, &payload, &length)) return 0;  // the host closed: done
            handle(kind, id, payload, length);
        }
        answer_due();
    }
}
