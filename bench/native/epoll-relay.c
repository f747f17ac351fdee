/*
 * The floor for the relay benchmarks (bench/run-routed.sh, contenders c-relay-N): the least a
 * relay process can do per message on Linux. It accepts one connection on 127.0.0.1:<listen-port>,
 * dials 127.0.0.1:<target-port> (TCP_NODELAY on both), then per readable socket does one
 * epoll_wait, one read and one blocking write of what it read; EOF is passed on as a half-close.
 * Not a product: one connection, blocking writes, no framing.
 *
 *   gcc -O2 -o bench/target/epoll-relay bench/native/epoll-relay.c
 *   epoll-relay <listen-port> <target-port>
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static struct sockaddr_in loopback(int port) {
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short) port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static void no_delay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
        fail("setsockopt TCP_NODELAY");
    }
}

static int write_all(int fd, const char *p, ssize_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, (size_t) n);
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= w;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <listen-port> <target-port>\n", argv[0]);
        return 2;
    }
    struct sockaddr_in here = loopback(atoi(argv[1]));
    struct sockaddr_in there = loopback(atoi(argv[2]));
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listener, (struct sockaddr *) &here, sizeof here) != 0 || listen(listener, 1) != 0) {
        fail("listen");
    }
    int fd[2];
    fd[0] = accept(listener, NULL, NULL);
    if (fd[0] < 0) {
        fail("accept");
    }
    close(listener);
    fd[1] = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd[1], (struct sockaddr *) &there, sizeof there) != 0) {
        fail("connect");
    }
    no_delay(fd[0]);
    no_delay(fd[1]);
    int ep = epoll_create1(0);
    for (int i = 0; i < 2; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (unsigned) i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &e) != 0) {
            fail("epoll_ctl");
        }
    }
    static char buf[65536];
    int open_ways = 2;
    while (open_ways > 0) {
        struct epoll_event ready[2];
        int n = epoll_wait(ep, ready, 2, -1);
        if (n < 0) {
            fail("epoll_wait");
        }
        for (int k = 0; k < n; k++) {
            int from = (int) ready[k].data.u32;
            ssize_t r = read(fd[from], buf, sizeof buf);
            if (r > 0) {
                if (write_all(fd[1 - from], buf, r) != 0) {
                    return 0;
                }
            } else {
                /* EOF or error: half-close the other side, stop watching this one. */
                shutdown(fd[1 - from], SHUT_WR);
                epoll_ctl(ep, EPOLL_CTL_DEL, fd[from], NULL);
                open_ways--;
            }
        }
    }
    return 0;
}
