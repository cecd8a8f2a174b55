// The load client of `Scripts/bench stream`: many clients of `GET /v1/stream` in one process, on one epoll loop, so
// that the clients cost the machine little beside the server they measure.
//
// Usage: streamload PORT CLIENTS OUT
//   Connects CLIENTS sockets to 127.0.0.1:PORT (at most 256 connecting at once), sends each the stream's request and
//   prints "ready N" on stdout once every client has its response's head (N of them with status 200). Then, until
//   SIGTERM, reads the chunked bodies; for every event it notes the time from the event's `recordedAt` (the commit's
//   time, stamped by the store) to its arrival, in milliseconds. At SIGTERM it writes those times to OUT (float32,
//   the machine's byte order), and prints one line of JSON on stdout: clients, heads, arrivals, the fewest and most
//   events one client got, and how many streams the server closed. SIGUSR1 asks for "arrivals N" so far.
//
// Built by the bench with `cc -O2`; Linux only (epoll), as the bench is.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum phase { CONNECTING, HEAD, SIZE, DATA, DATA_END, DONE };

struct client {
    int fd;
    enum phase phase;
    long remaining;      // bytes of the current chunk still to come (DATA), or of its CRLF (DATA_END)
    char size[24];       // the chunk-size line read so far
    int size_length;
    char *text;          // the body, de-chunked, not yet split into events
    size_t length, capacity;
    long events;
};

static volatile sig_atomic_t stopping = 0, reporting = 0;
static void on_term(int signal) { (void)signal; stopping = 1; }
static void on_report(int signal) { (void)signal; reporting = 1; }

static float *latencies;
static size_t latency_count, latency_capacity;
static int heads, heads_ok, closed;

static double now_ms(void) {
    struct timespec spec;
    clock_gettime(CLOCK_REALTIME, &spec);
    return spec.tv_sec * 1000.0 + spec.tv_nsec / 1e6;
}

// "2026-11-29T12:30:00.123Z" as milliseconds since 1970; -1 when it is not that shape.
static double parse_instant(const char *text) {
    struct tm tm = {0};
    int millisecond = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &millisecond) != 7)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) * 1000.0 + millisecond;
}

static void note(double latency) {
    if (latency_count == latency_capacity) {
        latency_capacity = latency_capacity ? latency_capacity * 2 : 1 << 20;
        latencies = realloc(latencies, latency_capacity * sizeof *latencies);
        if (!latencies) { perror("streamload: memory"); exit(1); }
    }
    latencies[latency_count++] = (float)latency;
}

// Splits the client's de-chunked text into events ("\n\n" ends one) and notes each one's latency.
static void take_events(struct client *client, double arrived) {
    static const char key[] = "\"recordedAt\":\"";
    size_t start = 0;
    for (;;) {
        char *end = memmem(client->text + start, client->length - start, "\n\n", 2);
        if (!end) break;
        size_t event_length = (size_t)(end - (client->text + start));
        char *found = memmem(client->text + start, event_length, key, sizeof key - 1);
        if (found && (size_t)(found - client->text) + sizeof key - 1 + 24 <= start + event_length) {
            double recorded = parse_instant(found + sizeof key - 1);
            if (recorded >= 0) {
                note(arrived - recorded);
                client->events += 1;
            }
        }
        start += event_length + 2;
    }
    memmove(client->text, client->text + start, client->length - start);
    client->length -= start;
}

static void append_text(struct client *client, const char *bytes, size_t count) {
    if (client->length + count > client->capacity) {
        client->capacity = (client->length + count) * 2;
        client->text = realloc(client->text, client->capacity);
        if (!client->text) { perror("streamload: memory"); exit(1); }
    }
    memcpy(client->text + client->length, bytes, count);
    client->length += count;
}

// Feeds received bytes through the head and the chunked framing.
static void feed(struct client *client, const char *bytes, size_t count, double arrived) {
    size_t at = 0;
    while (at < count && client->phase != DONE) {
        switch (client->phase) {
        case HEAD: {
            append_text(client, bytes + at, count - at);
            at = count;
            char *end = memmem(client->text, client->length, "\r\n\r\n", 4);
            if (!end) break;
            heads += 1;
            if (client->length >= 12 && memcmp(client->text + 9, "200", 3) == 0) heads_ok += 1;
            size_t rest = client->length - (size_t)(end + 4 - client->text);
            char *leftover = malloc(rest + 1);
            memcpy(leftover, end + 4, rest);
            client->length = 0;
            client->phase = SIZE;
            client->size_length = 0;
            feed(client, leftover, rest, arrived);
            free(leftover);
            break;
        }
        case SIZE: {
            char byte = bytes[at++];
            if (byte == '\n') {
                client->size[client->size_length] = 0;
                client->remaining = strtol(client->size, NULL, 16);
                client->size_length = 0;
                client->phase = client->remaining == 0 ? DONE : DATA;
            } else if (byte != '\r' && client->size_length < (int)sizeof client->size - 1) {
                client->size[client->size_length++] = byte;
            }
            break;
        }
        case DATA: {
            size_t take = count - at < (size_t)client->remaining ? count - at : (size_t)client->remaining;
            append_text(client, bytes + at, take);
            at += take;
            client->remaining -= (long)take;
            if (client->remaining == 0) {
                take_events(client, arrived);
                client->phase = DATA_END;
                client->remaining = 2;
            }
            break;
        }
        case DATA_END:
            at += 1;
            if (--client->remaining == 0) client->phase = SIZE;
            break;
        default:
            at = count;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: streamload PORT CLIENTS OUT\n");
        return 2;
    }
    int port = atoi(argv[1]);
    int total = atoi(argv[2]);
    const char *out = argv[3];
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    signal(SIGTERM, on_term);
    signal(SIGUSR1, on_report);
    signal(SIGPIPE, SIG_IGN);

    struct client *clients = calloc((size_t)total, sizeof *clients);
    int loop = epoll_create1(0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    static const char request[] = "GET /v1/stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n";
    int started = 0, connecting = 0, ready_said = 0;
    struct epoll_event events[1024];
    char buffer[65536];

    while (!stopping) {
        while (started < total && connecting < 256) {
            struct client *client = &clients[started];
            client->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (client->fd < 0) { perror("streamload: socket"); return 1; }
            int one = 1;
            setsockopt(client->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (connect(client->fd, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS) {
                perror("streamload: connect");
                return 1;
            }
            client->phase = CONNECTING;
            struct epoll_event interest = {.events = EPOLLOUT, .data.u32 = (uint32_t)started};
            epoll_ctl(loop, EPOLL_CTL_ADD, client->fd, &interest);
            started += 1;
            connecting += 1;
        }
        if (!ready_said && heads == total) {
            printf("ready %d\n", heads_ok);
            fflush(stdout);
            ready_said = 1;
        }
        if (reporting) {
            reporting = 0;
            printf("arrivals %zu\n", latency_count);
            fflush(stdout);
        }
        int count = epoll_wait(loop, events, 1024, 100);
        double arrived = now_ms();
        for (int index = 0; index < count; index++) {
            struct client *client = &clients[events[index].data.u32];
            if (client->phase == CONNECTING) {
                int failure = 0;
                socklen_t size = sizeof failure;
                getsockopt(client->fd, SOL_SOCKET, SO_ERROR, &failure, &size);
                connecting -= 1;
                if (failure || write(client->fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) {
                    fprintf(stderr, "streamload: client %u could not connect: %s\n", events[index].data.u32,
                            strerror(failure ? failure : errno));
                    return 1;
                }
                client->phase = HEAD;
                struct epoll_event interest = {.events = EPOLLIN, .data.u32 = events[index].data.u32};
                epoll_ctl(loop, EPOLL_CTL_MOD, client->fd, &interest);
                continue;
            }
            for (;;) {
                ssize_t got = read(client->fd, buffer, sizeof buffer);
                if (got > 0) {
                    feed(client, buffer, (size_t)got, arrived);
                    if (got < (ssize_t)sizeof buffer) break;
                } else {
                    if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                        epoll_ctl(loop, EPOLL_CTL_DEL, client->fd, NULL);
                        close(client->fd);
                        client->phase = DONE;
                        closed += 1;
                    }
                    break;
                }
            }
        }
    }

    FILE *file = fopen(out, "wb");
    if (!file || fwrite(latencies, sizeof *latencies, latency_count, file) != latency_count) {
        perror("streamload: writing the times");
        return 1;
    }
    fclose(file);
    long fewest = total ? clients[0].events : 0, most = 0;
    for (int index = 0; index < total; index++) {
        if (clients[index].events < fewest) fewest = clients[index].events;
        if (clients[index].events > most) most = clients[index].events;
    }
    printf("{\"clients\": %d, \"heads\": %d, \"ok\": %d, \"arrivals\": %zu, \"fewest\": %ld, \"most\": %ld, "
           "\"closed\": %d}\n", total, heads, heads_ok, latency_count, fewest, most, closed);
    return 0;
}
