/*
 * Test of the shim's native core (lwatm.c) on a kernel with ATM, two atmtcp interfaces joined
 * over loopback. Run in the qemu guest by src/test/qemu/guest-tests.sh.
 *
 *   lwatm_sdu_test sdus <itf.vpi.vci A> <itf.vpi.vci B> [all]
 *       sends AAL5 SDUs of sizes 0..65535 (even sizes A to B, odd B to A; with "all" every size,
 *       else a selection covering every cell count, see selected()), checks every byte, then
 *       the error results the Java mapping relies on (EMSGSIZE, EINVAL on QoS, ENOTCONN,
 *       EADDRINUSE, ENODEV, timeout, wake).
 *   lwatm_sdu_test released <itf.vpi.vci> <pid>
 *       opens the PVC, kills <pid> (the atmtcp daemon driving the interface), and checks that
 *       send and receive then return -EPIPE (the circuit was released), and that a socket
 *       never connected gives -ENOTCONN on receive.
 */
#include <errno.h>
#include <linux/atm.h>
#include <linux/atmdev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lwatm.h"

#define MAX_SDU 65535

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); fflush(stdout); } } while (0)

static void parse(const char *text, int *itf, int *vpi, int *vci)
{
    if (sscanf(text, "%d.%d.%d", itf, vpi, vci) != 3)
    {
        fprintf(stderr, "not itf.vpi.vci: %s\n", text);
        exit(2);
    }
}

static int open_pvc(const char *text, int cls, int pcr, int max_sdu)
{
    int itf, vpi, vci;
    parse(text, &itf, &vpi, &vci);
    int fd = lwatm_socket(0);
    if (fd < 0)
    {
        printf("FAIL socket(AF_ATMPVC): %s\n", strerror(-fd));
        exit(1);
    }
    int rc = lwatm_set_qos(fd, cls, pcr, max_sdu, cls, pcr, max_sdu);
    if (rc == 0)
    {
        rc = lwatm_connect_pvc(fd, itf, vpi, vci);
    }
    if (rc < 0)
    {
        lwatm_close(fd);
        return rc;
    }
    return fd;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * atmtcp carries an SDU to its peer as one message of 8 header bytes and the SDU on a control
 * socket whose max SDU is 65536 (vcc_create's "1 << 16 for meta VCs"), so SDUs above 65528
 * bytes pass the sender's checks but are lost between the two daemons: a limit of the emulated
 * medium, not of AAL5 or the shim.
 */
#define ATMTCP_MAX_SDU (65536 - 8)
#define CELL_PAYLOAD 48
#define AAL5_TRAILER 8

/* Every size up to this one is sent; above it, the sizes at each cell-count boundary. */
#define EVERY_SIZE_UP_TO 2048

/*
 * all: every size 0..65535. Otherwise every size 0..2048, then for every number of cells an SDU
 * can take (2 to 1366) the smallest and largest SDU of that many cells (most and least padding
 * in the last cell), and the 16 largest sizes: every cell count, padding extreme and the
 * atmtcp limit at about a twentieth of the bytes.
 */
static int selected(int size, int all)
{
    if (all || size <= EVERY_SIZE_UP_TO || size > MAX_SDU - 16)
    {
        return 1;
    }
    int with_trailer = size + AAL5_TRAILER;
    return with_trailer % CELL_PAYLOAD == 0 || with_trailer % CELL_PAYLOAD == 1;
}

static int sdus(const char *a_text, const char *b_text, int all)
{
    static unsigned char pattern[MAX_SDU + 256];
    static unsigned char got[MAX_SDU + 1];
    static const unsigned char fence[] = "fence: the SDU before me was lost by the medium";
    unsigned int x = 12345;
    for (size_t i = 0; i < sizeof(pattern); i++)
    {
        x = x * 1103515245u + 12345u;
        pattern[i] = (unsigned char)(x >> 16);
    }
    int a = open_pvc(a_text, ATM_UBR, 0, MAX_SDU);
    int b = open_pvc(b_text, ATM_UBR, 0, MAX_SDU);
    CHECK(a >= 0 && b >= 0, "open PVCs %s %s: %d %d", a_text, b_text, a, b);
    if (a < 0 || b < 0)
    {
        return 1;
    }
    int wake = lwatm_wake_fd();
    double start = now_s();
    long long bytes = 0;
    int sent = 0, delivered = 0, medium_lost = 0;
    for (int size = 0; size <= MAX_SDU; size++)
    {
        if (!selected(size, all))
        {
            continue;
        }
        int from = size % 2 == 0 ? a : b;
        int to = size % 2 == 0 ? b : a;
        const unsigned char *sdu = pattern + size % 251;
        /* Split the SDU in two parts to exercise the gather send. */
        int split = size / 3;
        int n = lwatm_send(from, sdu, split, sdu + split, size - split);
        CHECK(n == size, "send of %d bytes returned %d", size, n);
        sent++;
        int truncated;
        if (size == 0)
        {
            /* Linux ATM's vcc_sendmsg returns 0 for an empty SDU and sends nothing. */
            int r = lwatm_recv(to, wake, got, sizeof(got), 50, &truncated);
            CHECK(r == -EAGAIN, "an empty SDU is not sent, so nothing arrives: got %d", r);
            continue;
        }
        if (size > ATMTCP_MAX_SDU)
        {
            /* Lost between the daemons: the next SDU on the circuit is the fence, not this one. */
            CHECK(lwatm_send(from, fence, sizeof(fence), NULL, 0) == (int)sizeof(fence), "send the fence");
            int r = lwatm_recv(to, wake, got, sizeof(got), 5000, &truncated);
            CHECK(r == (int)sizeof(fence) && memcmp(got, fence, sizeof(fence)) == 0,
                "SDU of %d bytes is above atmtcp's %d and should be lost, the fence after it received: got %d bytes",
                size, ATMTCP_MAX_SDU, r);
            medium_lost++;
            continue;
        }
        int r = lwatm_recv(to, wake, got, sizeof(got), 5000, &truncated);
        CHECK(r == size && !truncated, "SDU of %d bytes: received %d (truncated %d)", size, r, truncated);
        if (r == size && memcmp(got, sdu, (size_t)size) != 0)
        {
            int i = 0;
            while (got[i] == sdu[i]) i++;
            CHECK(0, "SDU of %d bytes differs at byte %d", size, i);
        }
        else if (r == size)
        {
            delivered++;
            bytes += size;
        }
        if (failures > 20)
        {
            printf("too many failures, stopping\n");
            return 1;
        }
    }
    double secs = now_s() - start;
    printf("SDU sizes 0..%d (%s): %d sent, %d delivered byte for byte (%lld bytes), %d above atmtcp's %d lost as"
        " expected, in %.1f s (%.1f MB/s, %.0f us per SDU)\n", MAX_SDU, all ? "every size" : "every size to 2048, then"
        " each cell count's smallest and largest", sent, delivered, bytes, medium_lost, ATMTCP_MAX_SDU, secs,
        bytes / secs / 1e6, secs * 1e6 / sent);

    /* Truncation: an SDU larger than the buffer is consumed and flagged. */
    int truncated;
    CHECK(lwatm_send(a, pattern, 1000, NULL, 0) == 1000, "send 1000");
    int r = lwatm_recv(b, wake, got, 100, 5000, &truncated);
    CHECK(r == 100 && truncated, "truncated receive: %d %d", r, truncated);

    /* Timeout, poll, wake. */
    CHECK(lwatm_recv(b, wake, got, sizeof(got), 0, &truncated) == -EAGAIN, "poll of an empty circuit");
    CHECK(lwatm_recv(b, wake, got, sizeof(got), 20, &truncated) == -EAGAIN, "timeout");
    CHECK(lwatm_wake(wake) == 0, "wake");
    CHECK(lwatm_recv(b, wake, got, sizeof(got), 5000, &truncated) == LWATM_WOKEN, "woken receive");
    lwatm_close(a);
    lwatm_close(b);
    lwatm_close(wake);

    /* EMSGSIZE: an SDU above the transmit max SDU. */
    int small = open_pvc(a_text, ATM_UBR, 0, 1000);
    CHECK(small >= 0, "open with max_sdu 1000: %d", small);
    r = lwatm_send(small, pattern, 1000, pattern, 1);
    CHECK(r == -EMSGSIZE, "send of 1001 bytes on max_sdu 1000: %d (want -EMSGSIZE)", r);
    /* EADDRINUSE: the same PVC twice. */
    r = open_pvc(a_text, ATM_UBR, 0, 1000);
    CHECK(r == -EADDRINUSE, "second open of %s: %d (want -EADDRINUSE)", a_text, r);
    lwatm_close(small);

    /* EINVAL on QoS: CBR without a PCR; mixed classes; an SDU above AAL5's maximum at connect. */
    int fd = lwatm_socket(0);
    r = lwatm_set_qos(fd, ATM_CBR, 0, 1000, ATM_CBR, 0, 1000);
    CHECK(r == -EINVAL, "CBR with pcr 0: %d (want -EINVAL)", r);
    r = lwatm_set_qos(fd, ATM_UBR, 0, 1000, ATM_CBR, 1000, 1000);
    CHECK(r == -EINVAL, "UBR tx with CBR rx: %d (want -EINVAL)", r);
    r = lwatm_set_qos(fd, ATM_UBR, 0, 70000, ATM_UBR, 0, 70000);
    CHECK(r == 0, "set_qos max_sdu 70000 is only checked at connect: %d", r);
    int itf, vpi, vci;
    parse(a_text, &itf, &vpi, &vci);
    r = lwatm_connect_pvc(fd, itf, vpi, vci);
    CHECK(r == -EINVAL, "connect with max_sdu 70000: %d (want -EINVAL)", r);
    /* ENOTCONN: send on an unconnected socket. */
    r = lwatm_send(fd, pattern, 10, NULL, 0);
    CHECK(r == -ENOTCONN, "send unconnected: %d (want -ENOTCONN)", r);
    lwatm_close(fd);
    /* ENODEV (or ENXIO): no such interface. */
    r = open_pvc("9.0.100", ATM_UBR, 0, 1000);
    CHECK(r == -ENODEV || r == -ENXIO, "open 9.0.100: %d (want -ENODEV)", r);
    /* The link rate of an atmtcp interface is OC-3. */
    fd = lwatm_socket(0);
    r = lwatm_link_rate(fd, itf);
    CHECK(r == ATM_OC3_PCR, "link rate of itf %d: %d (want %d)", itf, r, ATM_OC3_PCR);
    lwatm_close(fd);

    printf("%s: native core, %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}

static int released(const char *text, int pid)
{
    int fd = open_pvc(text, ATM_UBR, 0, 8192);
    CHECK(fd >= 0, "open %s: %d", text, fd);
    if (fd < 0)
    {
        return 1;
    }
    kill(pid, SIGKILL);
    int r = 0;
    for (int i = 0; i < 100; i++)
    {
        r = lwatm_send(fd, "x", 1, NULL, 0);
        if (r < 0)
        {
            break;
        }
        usleep(20000);
    }
    CHECK(r == -EPIPE, "send after the daemon died: %d (want -EPIPE)", r);
    char buf[16];
    int truncated;
    r = lwatm_recv(fd, -1, buf, sizeof(buf), 0, &truncated);
    CHECK(r == -EPIPE, "receive (poll) after release: %d (want -EPIPE)", r);
    /* A waiting receive ends with EPIPE too, rather than sleeping out its timeout (-EAGAIN). */
    r = lwatm_recv(fd, -1, buf, sizeof(buf), 10000, &truncated);
    CHECK(r == -EPIPE, "receive (wait) after release: %d (want -EPIPE)", r);
    lwatm_close(fd);
    /* ENOTCONN: a socket never connected. */
    fd = lwatm_socket(0);
    r = lwatm_recv(fd, -1, buf, sizeof(buf), 0, &truncated);
    CHECK(r == -ENOTCONN, "receive on an unconnected socket: %d (want -ENOTCONN)", r);
    lwatm_close(fd);
    printf("%s: released circuit, %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN); /* vcc_sendmsg raises SIGPIPE with EPIPE whatever the flags */
    if ((argc == 4 || (argc == 5 && strcmp(argv[4], "all") == 0)) && strcmp(argv[1], "sdus") == 0)
    {
        return sdus(argv[2], argv[3], argc == 5);
    }
    if (argc == 4 && strcmp(argv[1], "released") == 0)
    {
        return released(argv[2], atoi(argv[3]));
    }
    fprintf(stderr, "usage: %s sdus <pvc A> <pvc B> [all] | released <pvc> <daemon pid>\n", argv[0]);
    return 2;
}
