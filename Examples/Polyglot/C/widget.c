// A widget in C, libc only, written from docs/protocol.md alone (the frames and the handshake are
// in appex.h): the widget host asks it to describe its widgets and for their timelines, and it
// answers with entries whose view trees the host draws in the terminal and on the widget desktop.
//
// Build:  cc -O2 -o CWidget widget.c
// Bundle: appex bundle --executable CWidget --output APP.app/Extensions/CWidget.appex
//         --identifier APP_ID.cwidget --binding com.apple.widgetkit-extension --key team.key
#include "appex.h"

enum { DESCRIBE = 0, PLACEHOLDER = 1, SNAPSHOT = 2, TIMELINE = 3 };
enum { WIDGETS = 0, ENTRY = 1, TIMELINE_REPLY = 2 };
static const char KIND[] = "CHello";

/// A growing byte buffer for a reply.
struct bytes {
    uint8_t data[4096];
    size_t count;
};

static void add_byte(struct bytes *b, uint8_t value) {
    if (b->count == sizeof b->data) fail("a reply larger than 4 KiB");
    b->data[b->count++] = value;
}

static void add_varint(struct bytes *b, uint64_t value) {
    uint8_t encoded[10];
    size_t n = put_varint(encoded, value);
    for (size_t i = 0; i < n; i++) add_byte(b, encoded[i]);
}

static void add_string(struct bytes *b, const char *text) {
    size_t n = strlen(text);
    add_varint(b, n);
    for (size_t i = 0; i < n; i++) add_byte(b, (uint8_t)text[i]);
}

static void add_double(struct bytes *b, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; i++) add_byte(b, (uint8_t)(bits >> (8 * i)));
}

static void add_run(struct bytes *b, const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) add_byte(b, bytes[i]);
}

// MARK: - The view tree (protocol.md 10.3)

/// A text node of one verbatim run; `font` is a font name byte or -1, `level` a foreground level
/// (0 primary ... 3 quaternary) or -1.
static void add_text(struct bytes *b, const char *text, int font, int level) {
    add_byte(b, 0x02);  // text
    add_varint(b, 1);   // one run
    add_byte(b, 0x00);  // verbatim
    add_string(b, text);
    add_byte(b, (uint8_t)((font >= 0 ? 1 : 0) | (level >= 0 ? 8 : 0)));  // the style's fields
    if (font >= 0) {
        add_byte(b, (uint8_t)font);  // name
        add_byte(b, 0x00);           // no size
        add_byte(b, 0x00);           // no weight
        add_byte(b, 0x00);           // not italic
        add_byte(b, 0x00);           // not monospaced
    }
    if (level >= 0) {
        add_byte(b, 0x00);  // a hierarchical paint
        add_byte(b, (uint8_t)level);
    }
}

/// A text node that shows `date` as a time, formatted by the renderer.
static void add_time(struct bytes *b, double date) {
    add_byte(b, 0x02);  // text
    add_varint(b, 1);
    add_byte(b, 0x01);  // a date
    add_double(b, date);
    add_byte(b, 0x00);  // as a time
    add_byte(b, 0x00);  // no style
}

/// An entry at `date`: a vertical stack of a title, the time and a note.
static void add_entry(struct bytes *b, double date) {
    struct bytes tree = { .count = 0 };
    add_byte(&tree, 0x02);                                  // view tree version 2
    add_byte(&tree, 0x04);                                  // a stack
    add_byte(&tree, 0x00);                                  // vertical
    add_run(&tree, (const uint8_t[]){ 0x00, 0x01 }, 2);     // leading, centred
    add_byte(&tree, 0x01);                                  // spacing:
    add_double(&tree, 4);                                   // 4 points
    add_varint(&tree, 3);                                   // three children
    add_text(&tree, "Hello from C", 0x04, -1);              // headline
    add_time(&tree, date);
    char note[64];
    snprintf(note, sizeof note, "libc only, pid %d", (int)getpid());
    add_text(&tree, note, 0x09, 1);                         // caption, secondary
    add_double(b, date);
    add_byte(b, 0x00);  // no relevance
    add_varint(b, tree.count);
    add_run(b, tree.data, tree.count);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// MARK: - Serving the widget host (protocol.md 10.1, 10.2)

/// Checks that a request names this extension's one widget kind.
static int names_our_kind(const uint8_t *payload, size_t length) {
    size_t i = 1;
    char *kind = get_string(payload, length, &i);
    int ours = strcmp(kind, KIND) == 0;
    free(kind);
    return ours;
}

static void answer(uint64_t id, const uint8_t *payload, size_t length) {
    struct bytes reply = { .count = 0 };
    if (length == 0) fail("an empty widget request");
    if (payload[0] != DESCRIBE && !names_our_kind(payload, length)) {
        static const char unknown[] = "not-found: this extension has only the widget CHello";
        send_frame(FAILURE, id, (const uint8_t *)unknown, sizeof unknown - 1);
        return;
    }
    switch (payload[0]) {
    case DESCRIBE:
        add_byte(&reply, WIDGETS);
        add_varint(&reply, 1);
        add_string(&reply, KIND);
        add_string(&reply, "C hello");
        add_string(&reply, "A widget written in C, libc only.");
        add_varint(&reply, 2);
        add_string(&reply, "systemSmall");
        add_string(&reply, "systemMedium");
        break;
    case PLACEHOLDER:
    case SNAPSHOT:
        add_byte(&reply, ENTRY);
        add_entry(&reply, now_seconds());
        break;
    case TIMELINE: {
        double now = now_seconds();
        add_byte(&reply, TIMELINE_REPLY);
        add_varint(&reply, 1);
        add_entry(&reply, now);
        add_byte(&reply, 0x01);  // reload after a date:
        add_double(&reply, now + 900);  // in 15 minutes
        break;
    }
    default: {
        static const char none[] = "not-found: this widget performs no intents";
        send_frame(FAILURE, id, (const uint8_t *)none, sizeof none - 1);
        return;
    }
    }
    send_frame(REPLY, id, reply.data, reply.count);
}

int main(void) {
    appex_name = "cwidget";
    appex_start();
    for (;;) {
        uint8_t kind, *payload;
        uint64_t id;
        size_t length;
        if (!receive(&kind, &id, &payload, &length)) return 0;  // the widget host closed: done
        if (kind == REQUEST) {
            answer(id, payload, length);
        } else if (kind == INVOCATION) {
            static const char refusal[] = "remote-failure: this extension serves no distributed actors";
            send_frame(FAILURE, id, (const uint8_t *)refusal, sizeof refusal - 1);
        } else if (kind == GOODBYE) {
            return 0;
        }
        free(payload);
    }
}
