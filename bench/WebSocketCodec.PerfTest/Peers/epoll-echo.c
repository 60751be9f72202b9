// A byte echo on one epoll loop: the physical limit the perf tool compares websocket servers against.
// It answers the perf client's upgrade request with a fixed 101 (the client sends RFC 6455's sample key), then
// echoes every byte as read: one recv of up to 64 KiB, one send of what it read. A send the socket does not take
// whole keeps the rest and stops reading that connection until it is written.
// The perf tool's server protocol: prints "port N" on stdout, answers "gc" on stdin with zero counts (no managed
// heap), and exits when stdin ends.
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFFER (64 * 1024)
#define MAX_EVENTS 256

static const char Switching[] =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";

struct connection {
    int fd;
    int upgraded;      // the request head was answered
    int head_matched;  // how many bytes of "\r\n\r\n" were seen last
    char *pending;     // bytes a send did not take
    size_t pending_length;
};

static unsigned char buffer[BUFFER];

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void drop(int loop, struct connection *c) {
    epoll_ctl(loop, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->pending);
    free(c);
}

// Sends bytes; keeps what the socket did not take. Returns -1 when the connection failed.
static int send_all(int loop, struct connection *c, const char *bytes, size_t length) {
    if (c->pending != NULL) { // behind bytes still waiting: keep the order
        char *grown = realloc(c->pending, c->pending_length + length);
        if (grown == NULL) fail("realloc");
        memcpy(grown + c->pending_length, bytes, length);
        c->pending = grown;
        c->pending_length += length;
        return 0;
    }
    while (length > 0) {
        ssize_t sent = send(c->fd, bytes, length, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) return -1;
            c->pending = malloc(length);
            if (c->pending == NULL) fail("malloc");
            memcpy(c->pending, bytes, length);
            c->pending_length = length;
            struct epoll_event event = {.events = EPOLLOUT, .data.ptr = c};
            if (epoll_ctl(loop, EPOLL_CTL_MOD, c->fd, &event) < 0) fail("epoll_ctl");
            return 0;
        }
        bytes += sent;
        length -= (size_t)sent;
    }
    return 0;
}

// Skips the request head (up to its blank line) and answers it; returns the offset of the first byte after it.
static ssize_t skip_head(int loop, struct connection *c, ssize_t read) {
    static const char end[] = "\r\n\r\n";
    for (ssize_t i = 0; i < read; i++) {
        c->head_matched = buffer[i] == (unsigned char)end[c->head_matched] ? c->head_matched + 1
                          : buffer[i] == '\r' ? 1 : 0;
        if (c->head_matched == 4) {
            c->upgraded = 1;
            if (send_all(loop, c, Switching, sizeof Switching - 1) < 0) return -1;
            return i + 1;
        }
    }
    return read;
}

static void on_readable(int loop, struct connection *c) {
    ssize_t got = recv(c->fd, buffer, BUFFER, 0);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(loop, c);
        return;
    }
    if (got < 0) return;
    ssize_t start = c->upgraded ? 0 : skip_head(loop, c, got);
    if (start < 0 || (start < got && send_all(loop, c, (const char *)buffer + start, (size_t)(got - start)) < 0)) {
        drop(loop, c);
    }
}

static void on_writable(int loop, struct connection *c) {
    char *pending = c->pending;
    size_t length = c->pending_length;
    c->pending = NULL;
    c->pending_length = 0;
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(loop, EPOLL_CTL_MOD, c->fd, &event) < 0) fail("epoll_ctl");
    int failed = send_all(loop, c, pending, length) < 0;
    free(pending);
    if (failed) drop(loop, c);
}

// stdin: "gc" gets zero counts; its end stops the server.
static void on_command(void) {
    static char line[256];
    static size_t used;
    ssize_t got = read(0, line + used, sizeof line - 1 - used);
    if (got <= 0) exit(0);
    used += (size_t)got;
    char *newline;
    while ((newline = memchr(line, '\n', used)) != NULL) {
        *newline = '\0';
        if (strcmp(line, "gc") == 0) {
            printf("gc 0 0 0 0 -\n");
            fflush(stdout);
        }
        size_t rest = used - (size_t)(newline + 1 - line);
        memmove(line, newline + 1, rest);
        used = rest;
    }
    if (used == sizeof line - 1) used = 0; // a line too long to be a command
}

int main(void) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (listener < 0) fail("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(listener, 4096) < 0) fail("listen");
    socklen_t length = sizeof address;
    if (getsockname(listener, (struct sockaddr *)&address, &length) < 0) fail("getsockname");

    int loop = epoll_create1(0);
    if (loop < 0) fail("epoll_create1");
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(loop, EPOLL_CTL_ADD, listener, &event) < 0) fail("epoll_ctl");
    static int stdin_marker;
    event.data.ptr = &stdin_marker;
    if (epoll_ctl(loop, EPOLL_CTL_ADD, 0, &event) < 0) fail("epoll_ctl stdin");

    printf("port %d\n", ntohs(address.sin_port));
    fflush(stdout);

    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int ready = epoll_wait(loop, events, MAX_EVENTS, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait");
        }
        for (int i = 0; i < ready; i++) {
            void *tag = events[i].data.ptr;
            if (tag == NULL) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    int on = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
                    struct connection *c = calloc(1, sizeof *c);
                    if (c == NULL) fail("calloc");
                    c->fd = fd;
                    struct epoll_event added = {.events = EPOLLIN, .data.ptr = c};
                    if (epoll_ctl(loop, EPOLL_CTL_ADD, fd, &added) < 0) fail("epoll_ctl");
                }
            } else if (tag == &stdin_marker) {
                on_command();
            } else {
                struct connection *c = tag;
                if (events[i].events & EPOLLOUT) on_writable(loop, c);
                else on_readable(loop, c);
            }
        }
    }
}
