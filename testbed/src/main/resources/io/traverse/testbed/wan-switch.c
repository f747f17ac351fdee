/*
 * The testbed's internet core with WAN latency: a learning Ethernet switch in user space whose
 * ports are TAP devices in the sites' network namespaces, and which holds every frame for the
 * one-way delay configured between the places of its in- and out-port. This kernel has no
 * netem (and no fq for timed departures), so the delay is done here. Single-threaded: one epoll
 * loop over the TAPs, stdin (commands) and a timerfd for the earliest frame due.
 *
 * Frames keep the virtio-net header and the TAPs offload checksums and TSO, so a TCP stream
 * crosses in frames of up to 64 KiB, as over a veth pair.
 *
 * Commands, one per line on stdin; each is answered with one line "ok ..." or "err ...":
 *   port <netns-file> <ifname> <place>   a TAP named ifname in that namespace, at place (0..255)
 *   delay <placeA> <placeB> <micros>     one-way delay both ways between two places
 *   hops <placeA> <placeB> <n>           routers between two places: an IPv4 packet's TTL drops by n
 *                                         on the way, and a packet whose TTL would reach 0 is dropped,
 *                                         as by the last of them (STUNT's low-TTL SYN dies on the way)
 *   stats                                 frames and bytes forwarded, dropped, expired (TTL), queued
 * End of stdin ends the process (the testbed closed, or its JVM died).
 *
 * Built by the testbed with gcc at first use (io.traverse.testbed.WanSwitch); not library code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 128
#define MAX_PLACES 256
#define MAX_MACS 1024
#define MAX_FRAME (10 + 65536 + 64)
#define MAX_QUEUED_BYTES (256L << 20) /* beyond this, frames are dropped, as by a router's full buffer */
#define READS_PER_WAKE 64

struct frame {
    uint64_t due_ns;
    uint64_t seq;
    int out; /* port index, or -1 for every port but in */
    int in;
    uint32_t len;
    unsigned char data[];
};

static int ports[MAX_PORTS];
static int port_place[MAX_PORTS];
static int nports;
static uint32_t delay_us[MAX_PLACES][MAX_PLACES];
static uint32_t hops[MAX_PLACES][MAX_PLACES];
static struct { unsigned char mac[6]; int port; } macs[MAX_MACS];
static int nmacs;
static struct frame **heap;
static size_t heap_len, heap_cap;
static uint64_t seq;
static long queued_bytes;
static unsigned long long forwarded, forwarded_bytes, dropped, expired;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000ull + (uint64_t) t.tv_nsec;
}

static int earlier(const struct frame *a, const struct frame *b) {
    return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void heap_push(struct frame *f) {
    if (heap_len == heap_cap) {
        heap_cap = heap_cap ? heap_cap * 2 : 1024;
        heap = realloc(heap, heap_cap * sizeof *heap);
        if (!heap) { perror("wan-switch: realloc"); exit(1); }
    }
    size_t i = heap_len++;
    heap[i] = f;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(heap[i], heap[parent])) break;
        struct frame *t = heap[i]; heap[i] = heap[parent]; heap[parent] = t;
        i = parent;
    }
}

static struct frame *heap_pop(void) {
    struct frame *top = heap[0];
    heap[0] = heap[--heap_len];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap_len && earlier(heap[l], heap[m])) m = l;
        if (r < heap_len && earlier(heap[r], heap[m])) m = r;
        if (m == i) break;
        struct frame *t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
    return top;
}

static int port_of_mac(const unsigned char *mac) {
    for (int i = 0; i < nmacs; i++) if (memcmp(macs[i].mac, mac, 6) == 0) return macs[i].port;
    return -1;
}

static void learn(const unsigned char *mac, int port) {
    if (mac[0] & 1) return; /* a group address is never a source */
    for (int i = 0; i < nmacs; i++) {
        if (memcmp(macs[i].mac, mac, 6) == 0) { macs[i].port = port; return; }
    }
    if (nmacs < MAX_MACS) { memcpy(macs[nmacs].mac, mac, 6); macs[nmacs].port = port; nmacs++; }
}

static void send_to(int port, const unsigned char *data, uint32_t len) {
    if (write(ports[port], data, len) < 0) dropped++;
    else { forwarded++; forwarded_bytes += len; }
}

/*
 * Takes n router hops off an IPv4 packet's TTL in a copy of the frame, with the header checksum
 * updated incrementally (RFC 1624). Returns the copy, or NULL if the TTL runs out on the way.
 */
static const unsigned char *after_hops(const unsigned char *data, uint32_t len, unsigned n) {
    static unsigned char copy[MAX_FRAME];
    const size_t hdr = sizeof(struct virtio_net_hdr);
    if (n == 0 || len < hdr + 14 + 20) return data;
    const unsigned char *eth = data + hdr;
    if (eth[12] != 0x08 || eth[13] != 0x00) return data; /* not IPv4: ARP passes untouched */
    unsigned ttl = eth[14 + 8];
    if (ttl <= n) { expired++; return NULL; }
    memcpy(copy, data, len);
    unsigned char *ip = copy + hdr + 14;
    uint16_t old_word = (uint16_t) ((ip[8] << 8) | ip[9]);
    ip[8] = (unsigned char) (ttl - n);
    uint16_t new_word = (uint16_t) ((ip[8] << 8) | ip[9]);
    uint32_t sum = (uint16_t) ~((ip[10] << 8) | ip[11]);
    sum += (uint16_t) ~old_word;
    sum += new_word;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    uint16_t check = (uint16_t) ~sum;
    ip[10] = (unsigned char) (check >> 8);
    ip[11] = (unsigned char) check;
    return copy;
}

/* Queues (or, with no delay, sends) one copy of a frame from port in to port out. */
static void forward(int in, int out, const unsigned char *data, uint32_t len, uint64_t now) {
    data = after_hops(data, len, hops[port_place[in]][port_place[out]]);
    if (data == NULL) return;
    uint32_t d = delay_us[port_place[in]][port_place[out]];
    if (d == 0 && heap_len == 0) { send_to(out, data, len); return; }
    if (queued_bytes + len > MAX_QUEUED_BYTES) { dropped++; return; }
    struct frame *f = malloc(sizeof *f + len);
    if (!f) { dropped++; return; }
    f->due_ns = now + (uint64_t) d * 1000u;
    f->seq = seq++;
    f->out = out;
    f->in = in;
    f->len = len;
    memcpy(f->data, data, len);
    queued_bytes += len;
    heap_push(f);
}

static void on_frame(int in, const unsigned char *data, uint32_t len, uint64_t now) {
    const size_t hdr = sizeof(struct virtio_net_hdr);
    if (len < hdr + 14) return;
    const unsigned char *eth = data + hdr;
    learn(eth + 6, in);
    int out = (eth[0] & 1) ? -1 : port_of_mac(eth);
    if (out == in) return;
    if (out >= 0) { forward(in, out, data, len, now); return; }
    for (int p = 0; p < nports; p++) if (p != in && ports[p] >= 0) forward(in, p, data, len, now);
}

static void release_due(uint64_t now) {
    while (heap_len > 0 && heap[0]->due_ns <= now) {
        struct frame *f = heap_pop();
        queued_bytes -= f->len;
        send_to(f->out, f->data, f->len);
        free(f);
    }
}

static void arm(int timer) {
    struct itimerspec when = {0};
    if (heap_len > 0) {
        uint64_t due = heap[0]->due_ns;
        if (due == 0) due = 1; /* zero would disarm */
        when.it_value.tv_sec = (time_t) (due / 1000000000ull);
        when.it_value.tv_nsec = (long) (due % 1000000000ull);
    }
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
}

static int open_tap(const char *netns_file, const char *ifname, char *err, size_t errlen) {
    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(netns_file, O_RDONLY | O_CLOEXEC);
    if (home < 0 || target < 0) {
        snprintf(err, errlen, "cannot open namespace %s: %s", netns_file, strerror(errno));
        if (home >= 0) close(home);
        if (target >= 0) close(target);
        return -1;
    }
    int fd = -1;
    if (setns(target, CLONE_NEWNET) < 0) {
        snprintf(err, errlen, "setns %s: %s", netns_file, strerror(errno));
    } else {
        fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
        struct ifreq ifr = {0};
        ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
        strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
        if (fd < 0) {
            snprintf(err, errlen, "/dev/net/tun: %s", strerror(errno));
        } else if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
            snprintf(err, errlen, "TUNSETIFF %s: %s", ifname, strerror(errno));
            close(fd);
            fd = -1;
        } else if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN) < 0) {
            snprintf(err, errlen, "TUNSETOFFLOAD %s: %s", ifname, strerror(errno));
            close(fd);
            fd = -1;
        }
        if (setns(home, CLONE_NEWNET) < 0) {
            fprintf(stderr, "wan-switch: cannot return to its own namespace: %s\n", strerror(errno));
            exit(1);
        }
    }
    close(home);
    close(target);
    return fd;
}

/* Sets one of the per-pair tables, both ways, and answers the command. */
static void set_pair(uint32_t table[][MAX_PLACES], int p1, int p2, long value, long max, const char *what) {
    if (p1 < 0 || p2 < 0 || p1 >= MAX_PLACES || p2 >= MAX_PLACES || value < 0 || value > max) {
        printf("err bad %s line\n", what);
        return;
    }
    table[p1][p2] = table[p2][p1] = (uint32_t) value;
    printf("ok\n");
}

static void command(char *line, int epoll) {
    char a[512], b[64];
    int place, p1, p2;
    long value;
    char err[600];
    if (sscanf(line, "port %511s %63s %d", a, b, &place) == 3) {
        if (nports == MAX_PORTS || place < 0 || place >= MAX_PLACES) { printf("err no room for a port at place %d\n", place); return; }
        int fd = open_tap(a, b, err, sizeof err);
        if (fd < 0) { printf("err %s\n", err); return; }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t) nports};
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev);
        ports[nports] = fd;
        port_place[nports] = place;
        printf("ok %d\n", nports++);
    } else if (sscanf(line, "delay %d %d %ld", &p1, &p2, &value) == 3) {
        set_pair(delay_us, p1, p2, value, 10000000, "delay");
    } else if (sscanf(line, "hops %d %d %ld", &p1, &p2, &value) == 3) {
        set_pair(hops, p1, p2, value, 64, "hops");
    } else if (strncmp(line, "stats", 5) == 0) {
        printf("ok forwarded %llu frames %llu bytes, dropped %llu, expired %llu, queued %zu frames %ld bytes\n", forwarded,
                forwarded_bytes, dropped, expired, heap_len, queued_bytes);
    } else {
        printf("err unknown command\n");
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (epoll < 0 || timer < 0) { perror("wan-switch"); return 1; }
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = MAX_PORTS};
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &ev);
    ev.data.u32 = MAX_PORTS + 1;
    epoll_ctl(epoll, EPOLL_CTL_ADD, STDIN_FILENO, &ev);
    static unsigned char buf[MAX_FRAME];
    static char line[1024];
    size_t line_len = 0;
    printf("ok ready\n");
    for (;;) {
        struct epoll_event events[64];
        int n = epoll_wait(epoll, events, 64, -1);
        if (n < 0 && errno != EINTR) { perror("wan-switch: epoll_wait"); return 1; }
        for (int i = 0; i < n; i++) {
            uint32_t id = events[i].data.u32;
            if (id == MAX_PORTS) {
                uint64_t ticks;
                while (read(timer, &ticks, sizeof ticks) > 0) {}
            } else if (id == MAX_PORTS + 1) {
                ssize_t r = read(STDIN_FILENO, line + line_len, sizeof line - 1 - line_len);
                if (r <= 0) return 0; /* the testbed is gone */
                line_len += (size_t) r;
                char *nl;
                while ((nl = memchr(line, '\n', line_len)) != NULL) {
                    *nl = 0;
                    command(line, epoll);
                    size_t used = (size_t) (nl - line) + 1;
                    memmove(line, nl + 1, line_len - used);
                    line_len -= used;
                }
                if (line_len == sizeof line - 1) line_len = 0; /* an overlong line is dropped */
            } else if (id < (uint32_t) nports) {
                for (int k = 0; k < READS_PER_WAKE; k++) {
                    ssize_t r = read(ports[id], buf, sizeof buf);
                    if (r < 0) {
                        if (errno != EAGAIN && errno != EINTR) { /* its namespace went away */
                            epoll_ctl(epoll, EPOLL_CTL_DEL, ports[id], NULL);
                            close(ports[id]);
                            ports[id] = -1;
                        }
                        break;
                    }
                    on_frame((int) id, buf, (uint32_t) r, now_ns());
                }
            }
        }
        release_due(now_ns());
        arm(timer);
    }
}
